"""Simple regret at checkpoints for a Figure 2 benchmark (the report gives only the final).

Usage: .venv/bin/python benchmarks/local_bo/checkpoints.py CONFIG STORE.db
Prints a Markdown table: mean +- SEM over seeds of the simple regret after 100, 200, ...
evaluations, the lowest mean in bold, and per checkpoint on how many seeds each method has
the lowest regret of all methods. Only seeds on which every method has finished count.
"""

from __future__ import annotations

import sys
from collections import defaultdict

import numpy as np

from isoline.bench.config import load_config
from isoline.bench.report import collect


def main(config: str, storage: str) -> None:
    cfg = load_config(config)
    runs = collect(cfg, storage)
    regret: dict[str, dict[int, np.ndarray]] = defaultdict(dict)
    for r in runs:
        if len(r.values) >= r.spec.budget:  # finished runs only (a bench may still be running)
            regret[r.spec.method.label][r.spec.seed] = r.best_so_far() - r.optimum
    labels = [m.label for m in cfg.methods]
    seeds = sorted(set.intersection(*(set(regret[m]) for m in labels)))
    n = min(len(regret[m][s]) for m in labels for s in seeds)
    checks = [k for k in range(100, n + 1, 100)]
    A = {m: np.array([regret[m][s][:n] for s in seeds]) for m in labels}  # (seeds, n)
    print(f"{cfg.name}: {len(seeds)} seeds; mean +- SEM simple regret, lowest mean in bold;")
    print("in brackets: seeds on which the method has the lowest regret of all methods.\n")
    print("| method | " + " | ".join(f"@ {k}" for k in checks) + " |")
    print("|---|" + "---|" * len(checks))
    means = {m: A[m][:, [k - 1 for k in checks]].mean(0) for m in labels}
    stack = np.stack([A[m][:, [k - 1 for k in checks]] for m in labels])  # (methods, seeds, checks)
    wins = (stack == stack.min(0, keepdims=True)).sum(1)  # (methods, checks)
    for i, m in enumerate(labels):
        cells = []
        for j, k in enumerate(checks):
            v = A[m][:, k - 1]
            text = f"{v.mean():.3f} +- {v.std(ddof=1) / np.sqrt(len(v)):.3f}"
            if means[m][j] == min(means[o][j] for o in labels):
                text = f"**{text}**"
            cells.append(f"{text} [{wins[i, j]}]")
        print(f"| {m} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(*sys.argv[1:3])
