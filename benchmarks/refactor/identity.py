"""Check that a restructuring leaves results unchanged: trajectories before and after.

``record`` runs a fixed set of short runs and writes every run's evaluated points and
values (exact float64, as hex) to a JSON file; ``compare`` reads two such files and lists
the runs that differ (exit status 1 if any). Run ``record`` once with the old commit's
sources on ``PYTHONPATH`` and once with the new ones, then ``compare``.

The set of runs:

* ``demo``: every run of the bundled demo config (``src/isoline/configs/demo.yaml``), in full;
* ``paper``: one row of each paper benchmark: every method of the config on its first
  problem, seed 0, with the budget cut to ``--paper-budget`` (local BO: Figure 2 on the
  reference GP-sampled objective, d = 25; batch BO: Figure 1 synthetic; NeuralBO:
  Figure 1 synthetic);
* ``methods``: every registered method with default options on Levy (d = 3), 16
  evaluations, sequential and in batches of 3.

Uses only public names of the package, so the same script records any commit.

Usage::

    PYTHONPATH=<old>/src python benchmarks/refactor/identity.py record before.json
    PYTHONPATH=src python benchmarks/refactor/identity.py record after.json
    python benchmarks/refactor/identity.py compare before.json after.json
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

import isoline as iso
from isoline.bench.config import load_config
from isoline.bench.runner import ProblemObjective, make_problem, resolve_options

ROOT = Path(__file__).resolve().parents[2]
PAPER_CONFIGS = (
    "benchmarks/local_bo/fig2_reference_d25.yaml",
    "benchmarks/batch_bo/fig1_synthetic.yaml",
    "benchmarks/neuralbo/synthetic.yaml",
)


def _run(spec: Any) -> dict[str, Any]:
    problem = make_problem(spec)
    t0 = time.process_time()
    res = iso.minimize(
        ProblemObjective(problem), problem.space, method=spec.method.name, budget=spec.budget,
        seed=spec.seed, batch_size=spec.batch_size, **resolve_options(spec.method.options, problem),
    )  # fmt: skip
    return {
        "study": spec.study,
        "X": [[float(v).hex() for v in row] for row in np.asarray(res.x_iters)],
        "y": [float(v).hex() for v in res.func_vals],
        "best": float(np.nanmin(res.func_vals)),
        "cpu_s": round(time.process_time() - t0, 2),
    }


def _specs(paper_budget: int) -> list[Any]:
    demo = load_config(ROOT / "src/isoline/configs/demo.yaml")
    specs = list(demo.runs())
    for path in PAPER_CONFIGS:
        cfg = load_config(ROOT / path)
        cfg = replace(cfg, seeds=[0], problems=cfg.problems[:1], budget=paper_budget)
        specs += [replace(s, budget=min(s.budget, paper_budget)) for s in cfg.runs()]
    small = load_config(ROOT / "src/isoline/configs/demo.yaml")
    for q in (1, 3):
        methods = [_method_spec(m.name) for m in iso.methods() if q == 1 or m.supports_batch]
        cfg = replace(small, name=f"methods-q{q}", budget=16, seeds=[0], batch_size=q,
                      methods=methods, problems=[_problem_spec("levy", 3)])  # fmt: skip
        specs += cfg.runs()
    return specs


def _method_spec(name: str) -> Any:
    from isoline.bench.config import MethodSpec

    return MethodSpec(name=name, label=name)


def _problem_spec(name: str, dim: int) -> Any:
    from isoline.bench.config import ProblemSpec

    return ProblemSpec(name=name, label=f"{name}-d{dim}", kwargs={"dim": dim})


def record(out: Path, paper_budget: int) -> None:
    runs = []
    for spec in _specs(paper_budget):
        runs.append(_run(spec))
        print(
            f"{runs[-1]['study']}: best {runs[-1]['best']:.6g} ({runs[-1]['cpu_s']} s)", flush=True
        )
    commit = subprocess.run(["git", "-C", str(Path(iso.__file__).parent), "rev-parse", "HEAD"],
                            capture_output=True, text=True).stdout.strip()  # fmt: skip
    meta = {
        "isoline": str(Path(iso.__file__).parent),
        "commit": commit,
        "paper_budget": paper_budget,
    }
    out.write_text(json.dumps({"meta": meta, "runs": runs}, indent=0))


def compare(a: Path, b: Path) -> int:
    ra = {r["study"]: r for r in json.loads(a.read_text())["runs"]}
    rb = {r["study"]: r for r in json.loads(b.read_text())["runs"]}
    missing = sorted(set(ra) ^ set(rb))
    differ = sorted(
        s for s in set(ra) & set(rb) if (ra[s]["X"], ra[s]["y"]) != (rb[s]["X"], rb[s]["y"])
    )
    same = len(set(ra) & set(rb)) - len(differ)
    print(f"{same} runs identical, {len(differ)} differ, {len(missing)} in one file only")
    for s in differ:
        ya, yb = ra[s]["y"], rb[s]["y"]
        first = next((i for i, (u, v) in enumerate(zip(ya, yb)) if u != v), min(len(ya), len(yb)))
        print(
            f"  differs: {s} from evaluation {first} (best {ra[s]['best']:.6g} vs {rb[s]['best']:.6g})"
        )
    for s in missing:
        print(f"  only in {'first' if s in ra else 'second'}: {s}")
    return 1 if differ or missing else 0


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record")
    r.add_argument("out", type=Path)
    r.add_argument("--paper-budget", type=int, default=60)
    c = sub.add_parser("compare")
    c.add_argument("a", type=Path)
    c.add_argument("b", type=Path)
    args = p.parse_args()
    if args.cmd == "record":
        record(args.out, args.paper_budget)
    else:
        sys.exit(compare(args.a, args.b))


if __name__ == "__main__":
    main()
