"""Seconds for one ask() of each NeuralBO-paper method after n random observations.

Used to plan the benchmark budgets (run on the shared 2-core machine under nice):
    nice -n 10 .venv/bin/python benchmarks/neuralbo/time_iteration.py --n 100 \
        [--config benchmarks/neuralbo/synthetic.yaml]
Prints one line per (method, d, n) and writes a Markdown table with --out.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import torch

import isoline as iso

METHODS = ["neuralbo", "gp-ei", "gp-ucb", "gp-ts", "dngo", "neural-greedy", "rf-ei", "random"]


def time_ask(method: str, d: int, n: int, seed: int = 0, **options: object) -> float:
    """Wall seconds of one ``ask()`` after ``n`` uniform points with Ackley-like values."""
    rng = np.random.default_rng(seed)
    options = {**options, "n_init": 1}
    opt = iso.Optimizer(iso.Box([0.0] * d, [1.0] * d), method, seed=seed, **options)
    X = rng.random((n, d))
    y = np.sum((X - 0.3) ** 2, axis=1) + 0.1 * np.sum(np.cos(6 * np.pi * X), axis=1)
    opt.ask()  # serve the 1-point initial design
    opt.tell(X, y)
    t = time.perf_counter()
    opt.ask()
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--methods", nargs="+", default=METHODS)
    ap.add_argument("--dims", nargs="+", type=int, default=[10, 20, 50, 100])
    ap.add_argument("--n", nargs="+", type=int, default=[50, 150])
    ap.add_argument(
        "--config",
        type=Path,
        default=None,
        help="take each method's options from this benchmark config",
    )
    ap.add_argument("--out", type=Path, default=None)
    a = ap.parse_args()
    torch.set_num_threads(1)
    options: dict[str, dict] = {}
    if a.config:
        from isoline.bench.config import load_config

        options = {m.name: m.options for m in load_config(a.config).methods}
    rows = []
    for n in a.n:
        for d in a.dims:
            for m in a.methods:
                s = time_ask(m, d, n, **options.get(m, {}))
                rows.append((m, d, n, s))
                print(f"{m:14s} d={d:4d} n={n:5d} {s:8.2f} s", flush=True)
    if a.out:
        lines = ["| method | d | n | seconds per ask |", "|---|---|---|---|"]
        lines += [f"| {m} | {d} | {n} | {s:.2f} |" for m, d, n, s in rows]
        a.out.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
