"""Figure 2 under the reference code's metric: the objective at the iterates x_t.

Our reports plot the best noise-free value over *all* evaluated points. The MPD code, which
the MinUCB code extends, plots the noise-free objective at the iterates x_t (the point each
local method moves to). This script re-runs the local methods of a Figure 2 config on its
seeds, exactly as the runner does (same options, `from-problem` hints, seeds and noise), and
records the noise-free value at the method's current point ``center`` after every
evaluation. It prints one JSON line per run with three final simple regrets:

* ``best_evaluated``: best over all evaluated points (our reports; must equal the report),
* ``best_iterate``: best over the iterates so far,
* ``last_iterate``: at the current iterate after the last evaluation.

    .venv/bin/python benchmarks/local_bo/iterate_metric.py benchmarks/local_bo/gp_d25.yaml \
        --seeds 0-9 > benchmarks/results/local_bo/diagnostics/iterate_metric_d25.jsonl
    .venv/bin/python benchmarks/local_bo/iterate_metric.py --table \
        benchmarks/results/local_bo/diagnostics/iterate_metric_d25.jsonl > .../iterate_metric_d25.md
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from scipy import stats

import isoline as iso
from isoline.bench.config import load_config
from isoline.bench.runner import ProblemObjective, resolve_options
from isoline.threads import single_threaded

LOCAL = ("la-minucb", "minucb", "gibo", "mpd")


def run(method, problem, seed: int, budget: int) -> dict[str, float]:
    """One run of ``method`` (a config method spec) on ``problem``; regrets at the end."""
    options = resolve_options(method.options, problem)
    opt = iso.Optimizer(problem.space, method.name, seed=seed, **options)
    objective = ProblemObjective(problem)
    evaluated, iterates = [], []
    t0 = time.process_time()
    for number in range(budget):
        X = opt.ask()
        y, info = objective(X[0], number=number)
        opt.tell(X, [y])
        evaluated.append(info.get("noise_free", y))
        center = opt.method.center
        if center is not None:
            x_t = problem.space.from_unit(np.asarray(center)[None, :])[0]
            iterates.append(problem.noise_free(x_t))
    return {
        "best_evaluated": float(np.min(evaluated) - problem.optimum),
        "best_iterate": float(np.min(iterates) - problem.optimum),
        "last_iterate": float(iterates[-1] - problem.optimum),
        "cpu": time.process_time() - t0,
    }


def table(path: str) -> None:
    """Markdown: the three regrets per method (mean +- SEM) and paired LA-MinUCB comparisons."""
    rows = [json.loads(line) for line in open(path)]
    methods = list(dict.fromkeys(r["method"] for r in rows))
    seeds = sorted({r["seed"] for r in rows})

    def get(method: str, key: str) -> np.ndarray:
        by_seed = {r["seed"]: r[key] for r in rows if r["method"] == method}
        return np.array([by_seed[s] for s in seeds])

    def fmt(v: np.ndarray) -> str:
        return f"{v.mean():.3f} +- {v.std(ddof=1) / np.sqrt(len(v)):.3f}"

    print(f"Final simple regret, seeds {seeds}, mean +- SEM (from `{path}`):\n")
    print(
        "| method | best evaluated | best iterate | last iterate | runs with best iterate > best evaluated |"
    )
    print("|---|---|---|---|---|")
    for m in methods:
        e, b, last = get(m, "best_evaluated"), get(m, "best_iterate"), get(m, "last_iterate")
        print(
            f"| {m} | {fmt(e)} | {fmt(b)} | {fmt(last)} | {int(np.sum(b > e + 1e-12))}/{len(e)} |"
        )
    print()
    ref = methods[0]
    for key in ("best_evaluated", "best_iterate", "last_iterate"):
        for m in methods[1:]:
            a, o = get(ref, key), get(m, key)
            p = stats.ttest_rel(a, o).pvalue
            print(
                f"- {key}: {ref} lower than {m} on {int(np.sum(a < o))}/{len(a)} seeds, "
                f"paired t-test two-sided p = {p:.3f}"
            )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("config", help="benchmark config, or with --table a JSONL file of this script")
    ap.add_argument("--table", action="store_true", help="summarize a JSONL output as Markdown")
    ap.add_argument("--seeds", default=None, help="e.g. 0-9 (default: the config's seeds)")
    ap.add_argument("--budget", type=int, default=None, help="default: the config's")
    a = ap.parse_args()
    if a.table:
        table(a.config)
        return
    cfg = load_config(a.config).subset(seeds=a.seeds)
    (pspec,) = cfg.problems
    for seed in cfg.seeds:
        problem = iso.problems.get(pspec.name, seed=seed, **pspec.kwargs)
        for method in cfg.methods:
            if method.name not in LOCAL:
                continue
            with single_threaded():
                out = run(method, problem, seed, a.budget or cfg.budget)
            print(json.dumps({"method": method.label, "seed": seed, **out}), flush=True)


if __name__ == "__main__":
    main()
