"""Ask and tell: run the evaluations yourself, a batch at a time.

``Optimizer.ask()`` proposes points in your units; ``tell`` reports their values (NaN or
None for a failed evaluation). Here a batch of 4 points per round, as for 4 lab
experiments run side by side, on Branin's function.

Usage::

    python examples/ask_tell.py
"""

from __future__ import annotations

import math

import numpy as np

import isoline as iso


def branin(x: np.ndarray) -> float:
    """Branin's function; its minimum is 0.397887 at three points."""
    a, b, c = 1.0, 5.1 / (4 * math.pi**2), 5 / math.pi
    r, s, t = 6.0, 10.0, 1 / (8 * math.pi)
    return float(a * (x[1] - b * x[0] ** 2 + c * x[0] - r) ** 2 + s * (1 - t) * math.cos(x[0]) + s)


def main() -> None:
    space = iso.Box(lower=[-5.0, 0.0], upper=[10.0, 15.0])
    opt = iso.Optimizer(space, method="bkop", batch_size=4, seed=0)
    for round_ in range(3):
        X = opt.ask()  # (4, 2)
        y = [branin(x) for x in X]  # run the 4 experiments
        opt.tell(X, y)
        best = opt.best
        assert best is not None
        print(f"round {round_}: best so far {best[1]:.4f}")
    x, y = opt.best or (None, math.nan)
    print("best point", x, "value", y)


if __name__ == "__main__":
    main()
