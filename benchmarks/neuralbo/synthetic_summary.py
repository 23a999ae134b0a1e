"""Cell table of synthetic.yaml: mean final simple regret per (function, d) and method, and
whether NeuralBO's mean is at least as good as every baseline's (the issue's target: in at
least 9 of the 12 cells). Also NeuralBO's rank among the methods in each cell.

    .venv/bin/python benchmarks/neuralbo/synthetic_summary.py --storage /tmp/neuralbo_synthetic.db \
        --out benchmarks/results/neuralbo/synthetic/cells.md
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from isoline.bench.config import load_config
from isoline.bench.report import collect

HERE = Path(__file__).parent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--config", type=Path, default=HERE / "synthetic.yaml")
    ap.add_argument("--storage", default="/tmp/neuralbo_synthetic.db")
    ap.add_argument("--reference", default="NeuralBO nu=0.1")
    ap.add_argument(
        "--out", type=Path, default=Path("benchmarks/results/neuralbo/synthetic/cells.md")
    )
    ap.add_argument("--problems", metavar="REGEX", help="only the cells whose label matches")
    a = ap.parse_args()
    cfg = load_config(a.config).subset(problems=a.problems)
    runs = collect(cfg, a.storage)
    methods = [m.label for m in cfg.methods]
    lines = [
        "Mean final simple regret (noise-free) over seeds; **bold** = lowest mean in the cell.",
        f"'{a.reference} best?' = {a.reference}'s mean <= every other method's mean.",
        "",
        "| cell | " + " | ".join(methods) + f" | {a.reference} best? | {a.reference} rank |",
        "|---|" + "---|" * (len(methods) + 2),
    ]
    wins = cells = 0
    for prob in cfg.problems:
        means = {}
        for m in methods:
            finals = [
                r.curve()[-1]
                for r in runs
                if r.spec.problem.label == prob.label
                and r.spec.method.label == m
                and len(r.values) >= r.spec.budget
            ]
            means[m] = float(np.mean(finals)) if finals else np.nan
        if not np.isfinite(means.get(a.reference, np.nan)):
            continue
        cells += 1
        others = [v for m, v in means.items() if m != a.reference and np.isfinite(v)]
        win = all(means[a.reference] <= v for v in others)
        wins += win
        rank = 1 + sum(v < means[a.reference] for v in others)
        low = min(v for v in means.values() if np.isfinite(v))
        row = [f"**{v:.4g}**" if v == low else f"{v:.4g}" for v in means.values()]
        verdict = "yes" if win else "no"
        lines.append(f"| {prob.label} | " + " | ".join(row) + f" | {verdict} | {rank} |")
    lines += ["", f"{a.reference} at least as good as every baseline in {wins} of {cells} cells."]
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
