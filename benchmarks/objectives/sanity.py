"""Sanity check of the methods for several outputs: on the small problems of the method
tests, over more seeds than the tests use, each method against random search.

Not issue 41's benchmark (the field suites against the peers): a check that each
constrained or multi-objective path beats random search on problems it should, with the
numbers behind the tests' margins. Problems (from ``tests/methods``):

- constrained 2-D bowl whose unconstrained minimum is infeasible, budget 10: gp-ei;
- BoTorch's BraninCurrin (2 objectives), budget 12 in batches of 2: gp-ei with qLogNEHVI
  and with qLogNParEGO, hypervolume against the tests' fixed reference point;
- 4-D bowl below a plane, budget 30: turbo (SCBO);
- 4-D disk and plane (2 constraints), budget 60: cobyqa; 6-D weighted bowl below a plane,
  budget 200: cma-es.

    nice -n 10 .venv/bin/python benchmarks/objectives/sanity.py --seeds 5 \
        --out benchmarks/results/objectives/sanity.md
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "methods"))

import test_constrained_methods as cm  # noqa: E402
import test_gp_outputs as go  # noqa: E402
import test_scbo as sc  # noqa: E402

from isoline.methods.classic import CMAES, RandomSearch  # noqa: E402
from isoline.methods.cobyqa import COBYQA  # noqa: E402


def rows(seed: int) -> dict[str, tuple[float, float]]:
    """(method's value, random search's value) per check, for one seed."""
    out = {}
    out["gp-ei constrained, best feasible (lower is better)"] = (
        go.best_feasible(
            go.run("gp-ei", go.bowl_below_diagonal, seed, 10, n_constraints=1, **go.CHEAP)
        ),
        go.best_feasible(go.run("random", go.bowl_below_diagonal, seed, 10, n_constraints=1)),
    )
    hv_random = go.hypervolume(go.run("random", go.branin_currin, seed, 12, n_objectives=2))
    for acq in ("ehvi", "parego"):
        Y = go.run("gp-ei", go.branin_currin, seed, 12, batch_size=2, n_objectives=2,
                   mo_acquisition=acq, **go.CHEAP)  # fmt: skip
        out[f"gp-ei {acq} BraninCurrin, hypervolume (higher is better)"] = (
            go.hypervolume(Y),
            hv_random,
        )
    out["turbo SCBO, best feasible (lower is better)"] = (
        sc.best_feasible(sc.run("turbo", seed, 30, n_candidates=500)),
        sc.best_feasible(sc.run("random", seed, 30)),
    )
    out["cobyqa 2 constraints, best feasible (lower is better)"] = (
        cm.best_feasible(cm.run(COBYQA(4, seed=seed, n_constraints=2), cm.disk_and_plane, 60)),
        cm.best_feasible(cm.run(RandomSearch(4, seed=seed, n_constraints=2, batch_size=10),
                                cm.disk_and_plane, 60)),
    )  # fmt: skip
    out["cma-es 1 constraint, best feasible (lower is better)"] = (
        cm.best_feasible(cm.run(CMAES(6, seed=seed, n_constraints=1, batch_size=9),
                                cm.weighted_below_plane, 200)),
        cm.best_feasible(cm.run(RandomSearch(6, seed=seed, n_constraints=1, batch_size=10),
                                cm.weighted_below_plane, 200)),
    )  # fmt: skip
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    start = time.time()
    results: dict[str, list[tuple[float, float]]] = {}
    for seed in range(args.seeds):
        for name, pair in rows(seed).items():
            results.setdefault(name, []).append(pair)
        print(f"seed {seed} done, {time.time() - start:.0f} s", flush=True)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, check=False, cwd=ROOT).stdout.strip()  # fmt: skip
    lines = [
        "# Several outputs: each method against random search (sanity check)",
        "",
        f"`python benchmarks/objectives/sanity.py --seeds {args.seeds}` at commit `{commit}`, "
        f"{time.time() - start:.0f} s. Seeds 0-{args.seeds - 1}; the problems are those of "
        "the method tests (see the script's docstring). `inf`: no feasible point.",
        "",
        "| check | method, per seed | random search, per seed | method better on |",
        "|---|---|---|---|",
    ]
    for name, pairs in results.items():
        m, r = np.array(pairs).T
        better = (m > r) if "higher" in name else (m < r)
        fmt = ", ".join
        lines.append(f"| {name} | {fmt(f'{v:.4g}' for v in m)} | {fmt(f'{v:.4g}' for v in r)} "
                     f"| {int(better.sum())} of {len(pairs)} |")  # fmt: skip
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
