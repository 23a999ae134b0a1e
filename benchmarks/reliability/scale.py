"""Does a method's result depend on the scale of the objective?

Every adaptive registered method minimizes ``c * ||x - 0.35||^2`` on ``[-1, 2]^3`` (16
evaluations, 4 initial points, seeds 0-2) for scales ``c`` = 2^-30, 1, 2^30 (exact in
floating point, so a scale-free method gives the same trajectory) and 1e-9, 1e9. The
table shows the final best value divided by ``c`` (mean +- SEM over seeds) and the first
trial whose point differs from the ``c = 1`` run by more than 1e-3, and with ``--seeds``
above 3 the two-sided Mann-Whitney U p-value against ``c = 1``.

    nice -n 10 .venv/bin/python benchmarks/reliability/scale.py
    nice -n 10 .venv/bin/python benchmarks/reliability/scale.py la-minucb --seeds 10 \
        --out benchmarks/results/reliability/scale_la_minucb.md
"""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

import numpy as np
from scipy.stats import mannwhitneyu

import isoline as iso
from isoline.bench.report import git_commit
from isoline.methods.registry import get_method

OUT = Path(__file__).resolve().parents[1] / "results" / "reliability" / "scale.md"
SCALES = (2.0**-30, 1e-9, 1.0, 1e9, 2.0**30)


def run(method: str, c: float, seed: int) -> iso.Result:
    box = iso.Box([-1.0] * 3, [2.0] * 3)
    return iso.minimize(lambda x: c * float(np.sum((x - 0.35) ** 2)), box, method, budget=16,
                        seed=seed, n_init=4)  # fmt: skip


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("methods", nargs="*", help="default: every adaptive method")
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--out", default=str(OUT))
    args = p.parse_args()
    warnings.simplefilter("ignore")
    seeds = range(args.seeds)
    methods = args.methods or [m.name for m in iso.methods() if get_method(m.name).adaptive]
    commit = git_commit()
    head = "| method | " + " | ".join(f"c = {c:.3g}" for c in SCALES) + " |"
    lines = [
        f"# Objective scale: final best value / c (mean +- SEM, seeds 0-{args.seeds - 1}) and "
        "first differing trial",
        "",
        f"Made by `python benchmarks/reliability/scale.py {' '.join(methods) if args.methods else ''}"
        f" --seeds {args.seeds}` at commit `{commit}`. `diff@k`: the first trial (over the "
        "seeds) whose point differs from the c = 1 run by more than 1e-3; `same`: none does; "
        "`p`: two-sided Mann-Whitney U against c = 1 (10 seeds or more).",
        "",
        head,
        "|---" * (len(SCALES) + 1) + "|",
    ]
    for method in methods:
        ref = [run(method, 1.0, s) for s in seeds]
        cells = []
        for c in SCALES:
            rs = ref if c == 1.0 else [run(method, c, s) for s in seeds]
            vals = np.array([r.fun / c for r in rs])
            diffs = [
                int(np.argmax(d > 1e-3))
                for r, r0 in zip(rs, ref)
                if ((d := np.abs(r.x_iters - r0.x_iters).max(axis=1)) > 1e-3).any()
            ]
            where = f"diff@{min(diffs)}" if diffs else "same"
            if args.seeds >= 10 and c != 1.0:
                p0 = mannwhitneyu(vals, [r.fun for r in ref]).pvalue
                where += f", p = {p0:.2f}"
            cells.append(
                f"{vals.mean():.3g} +- {vals.std(ddof=1) / np.sqrt(len(vals)):.2g} ({where})"
            )
        lines.append(f"| {method} | " + " | ".join(cells) + " |")
        print(lines[-1], flush=True)
    Path(args.out).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
