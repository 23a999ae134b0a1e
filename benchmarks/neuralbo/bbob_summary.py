"""Fraction of (function, target) pairs solved per method and dimension (NeuralBO Fig. 2).

Reads the runs of one or more BBOB configs (``bbob.yaml``: d = 2, 3; ``bbob_d5.yaml``;
``bbob_d10.yaml``) from the store written by ``isoline bench`` and, for each
dimension, averages :meth:`isoline.problems.bbob.BBOB.fraction_solved` (COCO's 51 targets
per function instance) over the 24 functions: the "fraction of (function, target) pairs"
after each evaluation, plotted against evaluations / d as COCO does.

    .venv/bin/python benchmarks/neuralbo/bbob_summary.py --storage /tmp/neuralbo_bbob.db \
        --out benchmarks/results/neuralbo/bbob
    .venv/bin/python benchmarks/neuralbo/bbob_summary.py --config benchmarks/neuralbo/bbob_d5.yaml \
        benchmarks/neuralbo/bbob_d10.yaml --storage S.db --out benchmarks/results/neuralbo/bbob_d5_d10
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from isoline import problems
from isoline.bench.config import load_config
from isoline.bench.report import collect
from isoline.problems.bbob import fraction_of_pairs_solved

HERE = Path(__file__).parent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--config", type=Path, nargs="+", default=[HERE / "bbob.yaml"])
    ap.add_argument("--storage", default="/tmp/neuralbo_bbob.db")
    ap.add_argument("--out", type=Path, default=Path("benchmarks/results/neuralbo/bbob"))
    a = ap.parse_args()
    cfgs = [load_config(c) for c in a.config]
    runs = [r for cfg in cfgs for r in collect(cfg, a.storage)]
    # (dim, method) -> list of (problem, values); only complete runs count
    groups: dict[tuple[int, str], list] = defaultdict(list)
    for r in runs:
        kw = r.spec.problem.kwargs
        if len(r.values) < r.spec.budget:
            continue
        prob = problems.get("bbob", dim=kw["dim"], function=kw["function"], seed=r.spec.seed)
        v = np.where(np.isfinite(r.values), r.values, np.inf)
        groups[(kw["dim"], r.spec.method.label)].append((prob, v))
    dims = sorted({d for d, _ in groups})
    methods = list(dict.fromkeys(m.label for cfg in cfgs for m in cfg.methods))
    a.out.mkdir(parents=True, exist_ok=True)
    fig, axes = plt.subplots(1, len(dims), figsize=(5.2 * len(dims), 4), squeeze=False)
    rows = []
    for ax, d in zip(axes[0], dims):
        for m in methods:
            pairs = groups.get((d, m), [])
            if not pairs:
                continue
            curve = fraction_of_pairs_solved(pairs)
            x = np.arange(1, len(curve) + 1) / d
            ax.plot(x, curve, label=m)
            rows.append((d, m, len(pairs), curve[len(curve) // 2 - 1], curve[-1]))
        ax.set(
            title=f"BBOB d={d}, 24 functions",
            xlabel="evaluations / d",
            ylabel="fraction of (function, target) pairs",
            ylim=(0, 1),
        )
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(a.out / "fraction_solved.png", dpi=110)
    lines = [
        "| d | method | functions | fraction solved at 10 d evals | at 20 d evals (final) |",
        "|---|---|---|---|---|",
    ]
    for d, m, n, half, final in rows:
        best = max(f for dd, _, _, _, f in rows if dd == d)
        cell = f"**{final:.3f}**" if final == best else f"{final:.3f}"
        lines.append(f"| {d} | {m} | {n} | {half:.3f} | {cell} |")
    (a.out / "fraction_solved.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
