"""Does a method's result depend on the scale of the objective?

Every adaptive registered method minimizes ``c * ||x - 0.35||^2`` on ``[-1, 2]^3`` (16
evaluations, 4 initial points, seeds 0-2) for scales ``c`` = 2^-30, 1, 2^30 (exact in
floating point, so a scale-free method gives the same trajectory) and 1e-9, 1e9. The
table shows the final best value divided by ``c`` (mean +- SEM over seeds) and the first
trial whose point differs from the ``c = 1`` run by more than 1e-3.

    nice -n 10 .venv/bin/python benchmarks/reliability/scale.py
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np

import isoline as iso
from isoline.registry import get_method

OUT = Path(__file__).resolve().parents[1] / "results" / "reliability" / "scale.md"
SCALES = (2.0**-30, 1e-9, 1.0, 1e9, 2.0**30)
SEEDS = (0, 1, 2)


def run(method: str, c: float, seed: int) -> iso.Result:
    box = iso.Box([-1.0] * 3, [2.0] * 3)
    return iso.minimize(lambda x: c * float(np.sum((x - 0.35) ** 2)), box, method, budget=16,
                        seed=seed, n_init=4)  # fmt: skip


def main() -> None:
    warnings.simplefilter("ignore")
    methods = sys.argv[1:] or [m.name for m in iso.methods() if get_method(m.name).adaptive]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()  # fmt: skip
    head = "| method | " + " | ".join(f"c = {c:.3g}" for c in SCALES) + " |"
    lines = [
        "# Objective scale: final best value / c (mean +- SEM, seeds 0-2) and first differing trial",
        "",
        f"Made by `python benchmarks/reliability/scale.py` at commit `{commit}`. `diff@k`: the "
        "first trial (over the 3 seeds) whose point differs from the c = 1 run by more than "
        "1e-3; `same`: none does.",
        "",
        head,
        "|---" * (len(SCALES) + 1) + "|",
    ]
    for method in methods:
        ref = [run(method, 1.0, s) for s in SEEDS]
        cells = []
        for c in SCALES:
            rs = ref if c == 1.0 else [run(method, c, s) for s in SEEDS]
            vals = np.array([r.fun / c for r in rs])
            diffs = [
                int(np.argmax(d > 1e-3))
                for r, r0 in zip(rs, ref)
                if ((d := np.abs(r.x_iters - r0.x_iters).max(axis=1)) > 1e-3).any()
            ]
            where = f"diff@{min(diffs)}" if diffs else "same"
            cells.append(f"{vals.mean():.3g} +- {vals.std(ddof=1) / np.sqrt(len(vals)):.2g} ({where})")
        lines.append(f"| {method} | " + " | ".join(cells) + " |")
        print(lines[-1], flush=True)
    OUT.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
