"""CPU cost of one suggestion on a mixed space against a continuous space of the same
encoded dimension (target: at most 1.5x).

The mixed space has a log-scaled real, a real, an integer, a log-scaled integer and a
categorical of three choices (encoded dimension 7); the continuous one has 7 reals. Each
optimizer is told the same ``n`` random points (rounded for the mixed space) with values of
a smooth function, then asked ``asks`` times in a row (each answer told before the next
ask); the CPU time (``time.process_time``) of each ask is recorded.

Usage::

    python benchmarks/spaces/suggestion_cost.py [--methods gp-ei,gp-ucb] [--n 20,60]
        [--seeds 3] [--asks 3] [--out benchmarks/results/spaces/suggestion_cost.md]
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np

import isoline as iso
from isoline.bench.report import git_commit
from isoline.bench.stats import to_markdown
from isoline.testing import mixed_space


def _value(u: np.ndarray) -> float:
    return float(np.sum((u - 0.3) ** 2) + 0.1 * np.sin(7.0 * u).sum())


def ask_times(method: str, space: iso.Space, n: int, seed: int, asks: int) -> list[float]:
    rng = np.random.default_rng(seed)
    U = space.round(rng.random((n, space.dim)))
    opt = iso.Optimizer(space, method, seed=seed)
    opt.tell(space.from_unit(U), [_value(u) for u in U])
    out = []
    for _ in range(asks):
        t = time.process_time()
        X = opt.ask()
        out.append(time.process_time() - t)
        opt.tell(X, [_value(space.to_unit(X)[0])])
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--methods", default="gp-ei,gp-ucb,gp-ts,turbo")
    p.add_argument("--n", default="20,60")
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--asks", type=int, default=3)
    p.add_argument("--out", type=Path, default=Path("benchmarks/results/spaces/suggestion_cost.md"))
    args = p.parse_args()
    warnings.simplefilter("ignore")
    mixed = mixed_space()
    cont = iso.Space({f"x{i}": iso.Real(0.0, 1.0) for i in range(mixed.dim)})
    rows = []
    for method in args.methods.split(","):
        for n in (int(v) for v in args.n.split(",")):
            t_mixed, t_cont = [], []
            for seed in range(args.seeds):
                t_cont += ask_times(method, cont, n, seed, args.asks)
                t_mixed += ask_times(method, mixed, n, seed, args.asks)
            rows.append(
                {
                    "method": method,
                    "n": n,
                    "continuous (s)": f"{np.mean(t_cont):.3f}",
                    "mixed (s)": f"{np.mean(t_mixed):.3f}",
                    "ratio": f"{np.mean(t_mixed) / np.mean(t_cont):.2f}",
                }
            )
            print(rows[-1], flush=True)
    commit = git_commit()
    text = "\n".join(
        [
            "# Suggestion cost: mixed against continuous space of the same encoded dimension",
            "",
            f"Commit `{commit}`; command `python benchmarks/spaces/"
            f"suggestion_cost.py --methods {args.methods} --n {args.n} --seeds {args.seeds} "
            f"--asks {args.asks}`. Mean CPU seconds per ask over {args.seeds} seeds x "
            f"{args.asks} asks; encoded dimension {mixed.dim}.",
            "",
            to_markdown(rows, ["method", "n", "continuous (s)", "mixed (s)", "ratio"]),
            "",
        ]
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
