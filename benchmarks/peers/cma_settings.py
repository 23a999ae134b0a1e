"""isoline's ``cma-es`` against Optuna's ``CmaEsSampler``: which setting makes the gap.

Issue 18, item 5. On a few COCO BBOB functions at d = 5 and 10 with 60-100 evaluations,
isoline's ``cma-es`` ranked far below Optuna's ``CmaEsSampler``. The two wrap different
CMA-ES libraries (pycma, and the ``cmaes`` package) with different settings:

============== ========================== ==========================================
setting        isoline ``cma-es``          Optuna ``CmaEsSampler`` (``cmaes``)
============== ========================== ==========================================
start          centre of the box           centre of the box (after 1 random trial)
sigma0         0.25 of each range          1/6 of the smallest range
population     4 + floor(3 ln d)           4 + floor(3 ln d)
bounds         pycma's BoundTransform      resampling, then clipping
restarts       none                        none (4.4+: moved to OptunaHub)
============== ========================== ==========================================

Contenders here: Optuna's sampler, isoline's ``cma-es`` with ``sigma0 = 0.25`` (its
default before this comparison) and with ``sigma0 = 1/6``, and random search, each on the same problem objects, budget and seed.
One JSON line per (function, d, contender, seed), so a stopped run resumes; ``summary``
prints the final ``log10(f - f_opt)`` per cell and the mean rank per contender with
one-sided Wilcoxon tests of isoline's earlier default (sigma0 = 0.25, the reference)
against each contender. isoline's default is sigma0 = 1/6 since this comparison.

Usage::

    python benchmarks/peers/cma_settings.py run --out cma.jsonl
    python benchmarks/peers/cma_settings.py summary --out cma.jsonl
"""

from __future__ import annotations

import argparse
import json
import logging
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import rankdata, wilcoxon

import isoline as iso
from isoline.bench.report import git_commit
from isoline.problems import get as get_problem

#: one or two functions of each of COCO's five groups (separable, low/moderate
#: conditioning, high conditioning, multimodal with / with weak global structure)
FUNCTIONS = [1, 2, 8, 10, 15, 21]
CELLS = [(5, 60), (10, 100)]
SEEDS = range(5)
CONTENDERS = ["optuna-cmaes", "cma-es sigma0=0.25", "cma-es sigma0=1/6", "random"]
#: isoline's default before this comparison (the reference of the tests)
REFERENCE = "cma-es sigma0=0.25"


def _value(problem: Any, x: np.ndarray) -> float:
    out = problem(x)
    return float(out[0] if isinstance(out, tuple) else out)


def run_one(name: str, function: int, d: int, budget: int, seed: int) -> list[float]:
    """Objective values of one run, in evaluation order."""
    problem = get_problem("bbob", dim=d, function=function, seed=seed)
    if name == "optuna-cmaes":
        import optuna

        optuna.logging.set_verbosity(logging.WARNING)
        lo, hi = problem.space.lower, problem.space.upper
        study = optuna.create_study(sampler=optuna.samplers.CmaEsSampler(seed=seed))
        ys = []
        for _ in range(budget):
            t = study.ask()
            x = np.array([t.suggest_float(f"x{i}", lo[i], hi[i]) for i in range(d)])
            ys.append(_value(problem, x))
            study.tell(t, ys[-1])
        return ys
    method, options = {
        "cma-es sigma0=0.25": ("cma-es", {"sigma0": 0.25}),
        "cma-es sigma0=1/6": ("cma-es", {"sigma0": 1 / 6}),
        "random": ("random", {}),
    }[name]
    opt = iso.Optimizer(problem.space, method, seed=seed, **options)
    ys = []
    while len(ys) < budget:
        (x,) = opt.ask(1)
        ys.append(_value(problem, x))
        opt.tell([x], [ys[-1]])
    return ys


def run(out: Path) -> None:
    done = set()
    if out.exists():
        for line in out.read_text().splitlines():
            r = json.loads(line)
            done.add((r["function"], r["d"], r["contender"], r["seed"]))
    commit = git_commit()
    for d, budget in CELLS:
        for function in FUNCTIONS:
            for seed in SEEDS:
                for name in CONTENDERS:
                    if (function, d, name, seed) in done:
                        continue
                    ys = run_one(name, function, d, budget, seed)
                    fopt = get_problem("bbob", dim=d, function=function, seed=seed).optimum
                    row = {"function": function, "d": d, "budget": budget, "contender": name,
                           "seed": seed, "ys": ys, "fopt": fopt, "commit": commit}  # fmt: skip
                    with out.open("a") as fh:
                        fh.write(json.dumps(row) + "\n")


def _final(r: dict[str, Any]) -> float:
    return float(np.log10(max(min(r["ys"]) - r["fopt"], 1e-8)))


def summary(out: Path) -> None:
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    commits = sorted({r["commit"] for r in rows})
    print(f"Runs at commit {', '.join(commits)}; final log10(f - f_opt), mean over seeds.\n")
    print("| f | d | budget | " + " | ".join(CONTENDERS) + " |")
    print("|---|---|---|" + "---|" * len(CONTENDERS))
    ranks: dict[str, list[float]] = {c: [] for c in CONTENDERS}
    paired: dict[str, list[tuple[float, float]]] = {c: [] for c in CONTENDERS}
    for d, budget in CELLS:
        for f in FUNCTIONS:
            by = {c: {r["seed"]: _final(r) for r in rows
                      if (r["function"], r["d"], r["contender"]) == (f, d, c)}
                  for c in CONTENDERS}  # fmt: skip
            seeds = sorted(set.intersection(*(set(v) for v in by.values())))
            if not seeds:
                continue
            for s in seeds:
                for c, rk in zip(CONTENDERS, rankdata([by[c][s] for c in CONTENDERS])):
                    ranks[c].append(float(rk))
                for c in CONTENDERS:
                    paired[c].append((by[REFERENCE][s], by[c][s]))
            cells = " | ".join(f"{np.mean([by[c][s] for s in seeds]):.2f}" for c in CONTENDERS)
            print(f"| {f} | {d} | {budget} | {cells} |")
    print("\n| contender | mean rank (1 = best) | runs | p (sigma0=0.25 worse than it) |")
    print("|---|---|---|---|")
    for c in CONTENDERS:
        if not ranks[c]:
            continue
        a, b = np.array(paired[c]).T
        p = wilcoxon(a, b, alternative="greater").pvalue if np.any(a != b) else float("nan")
        print(f"| {c} | {np.mean(ranks[c]):.2f} | {len(ranks[c])} | {p:.3g} |")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    for name in ("run", "summary"):
        sub.add_parser(name).add_argument("--out", type=Path, required=True)
    args = p.parse_args()
    run(args.out) if args.cmd == "run" else summary(args.out)


if __name__ == "__main__":
    main()
