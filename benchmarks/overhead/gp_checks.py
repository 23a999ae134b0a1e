"""What GPyTorch's input checks cost isoline's GP methods, and that skipping them changes
no proposal.

GPyTorch and linear_operator run "debug" checks on every call by default (for example,
each prediction compares its inputs with the training inputs). isoline's asks and tells
run with them off (:func:`isoline.methods.base.gp_checks_off`). For each case below and
seed, this script runs the same ask/tell loop twice, with the checks off (the library as
it is) and on (that context replaced by a null one), in alternating order, and records
the method CPU (process time in ``ask`` and ``tell``, the objective excluded) and every
proposed point: the two runs of a pair must propose identical points.

    python benchmarks/overhead/gp_checks.py run --out rows.jsonl --seeds 0-2
    python benchmarks/overhead/gp_checks.py summary --out rows.jsonl
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks" / "optuna"))

import numpy as np  # noqa: E402
from bridge_rows import append_row, command_line, read_rows, seed_range  # noqa: E402

from isoline import Optimizer, problems  # noqa: E402
from isoline.auto import TUNING_OPTIONS  # noqa: E402
from isoline.bench.report import git_commit  # noqa: E402
from isoline.methods import base as method_base  # noqa: E402
from isoline.threads import single_threaded  # noqa: E402

#: label -> (method, options, Ackley's dimension, evaluations, batch size)
CASES: dict[str, tuple[str, dict[str, Any], int, int, int]] = {
    "gp-ei d5": ("gp-ei", {}, 5, 50, 1),
    "gp-ei tuning options d5": ("gp-ei", dict(TUNING_OPTIONS), 5, 50, 1),
    "turbo d10": ("turbo", {}, 10, 100, 1),
    "bkop q4 d5": ("bkop", {}, 5, 60, 4),
}
MODES = ("off", "on")


def one_run(method: str, options: dict[str, Any], dim: int, budget: int, q: int, seed: int,
            checks: str) -> dict[str, Any]:  # fmt: skip
    """One ask/tell run; ``checks="on"`` runs it with GPyTorch's checks left on."""
    problem = problems.get("ackley", dim=dim)
    saved = method_base.gp_checks_off
    if checks == "on":
        method_base.gp_checks_off = contextlib.nullcontext
    try:
        opt = Optimizer(problem.space, method, seed=seed, batch_size=q, **options)
        cpu, points = 0.0, []
        while len(points) < budget:
            t0 = time.process_time()
            X = opt.ask()
            cpu += time.process_time() - t0
            y = [float(problem.evaluate(x)[0]) for x in X]
            t0 = time.process_time()
            opt.tell(X, y)
            cpu += time.process_time() - t0
            points += np.asarray(X).tolist()
    finally:
        method_base.gp_checks_off = saved
    return {"method_cpu": cpu, "points": points}


def run(a: argparse.Namespace) -> None:
    out = Path(a.out)
    done = {(r["case"], r["seed"], r["checks"]) for r in read_rows(out)}
    commit = git_commit()
    for seed in seed_range(a.seeds):
        for case, (method, options, dim, budget, q) in CASES.items():
            for checks in MODES if seed % 2 == 0 else MODES[::-1]:
                if (case, seed, checks) in done:
                    continue
                with single_threaded():
                    row = one_run(method, options, dim, budget, q, seed, checks)
                row.update(case=case, seed=seed, checks=checks, commit=commit)
                append_row(out, row)
                print(f"{case} seed {seed} checks {checks}: CPU {row['method_cpu']:.1f} s",
                      flush=True)  # fmt: skip


def summary(a: argparse.Namespace) -> None:
    rows = {(r["case"], r["seed"], r["checks"]): r for r in read_rows(Path(a.out))}
    print("| case | seeds | CPU s, checks on | CPU s, checks off | off / on | identical points |")
    print("|---|---|---|---|---|---|")
    total = {m: 0.0 for m in MODES}
    for case in CASES:
        seeds = sorted(
            {s for c, s, _ in rows if c == case and all((c, s, m) in rows for m in MODES)}
        )
        if not seeds:
            continue
        cpu = {m: sum(rows[(case, s, m)]["method_cpu"] for s in seeds) for m in MODES}
        same = sum(
            rows[(case, s, "on")]["points"] == rows[(case, s, "off")]["points"] for s in seeds
        )
        for m in MODES:
            total[m] += cpu[m]
        print(f"| {case} | {len(seeds)} | {cpu['on']:.1f} | {cpu['off']:.1f} | "
              f"{cpu['off'] / cpu['on']:.2f} | {same} of {len(seeds)} |")  # fmt: skip
    if total["on"]:
        print(f"\nall cases: {total['off'] / total['on']:.2f}x the CPU with the checks on")


if __name__ == "__main__":
    command_line(__doc__, run, summary)
