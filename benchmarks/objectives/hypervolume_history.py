"""Time of the hypervolume after each evaluation (``Objective.hypervolume_history``, behind
``Result.hypervolume_history``, ``isoline report`` and the benchmark reports) on its worst
case: every evaluation feasible and on the Pareto front, so that the front grows at every
step and no step can reuse the previous value.

Rows: points drawn uniformly on the positive orthant of the unit sphere (no point
dominates another), all objectives minimized, the reference point inferred from the whole
run as ``Result.hypervolume_history`` does. A step that takes longer than ``--timeout``
seconds in total is reported as not finished.

    nice -n 10 .venv/bin/python benchmarks/objectives/hypervolume_history.py \
        --rows 300 --objectives 3 4
"""

from __future__ import annotations

import argparse
import signal
import subprocess
import time
from pathlib import Path
from types import FrameType

import numpy as np

from isoline.objective import Objective

ROOT = Path(__file__).resolve().parents[2]


class _Timeout(Exception):
    pass


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise _Timeout


def worst_case(rows: int, m: int, seed: int = 0) -> np.ndarray:
    """``(rows, m)`` mutually non-dominated points (minimized): on the unit sphere."""
    Y = np.abs(np.random.default_rng(seed).normal(size=(rows, m)))
    return Y / np.linalg.norm(Y, axis=1, keepdims=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=300)
    ap.add_argument("--objectives", type=int, nargs="+", default=[3, 4])
    ap.add_argument("--timeout", type=int, default=300, help="seconds per case")
    args = ap.parse_args()
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                          capture_output=True, text=True).stdout.strip()  # fmt: skip
    print(f"commit {head}; {args.rows} rows, all on the Pareto front")
    signal.signal(signal.SIGALRM, _alarm)
    for m in args.objectives:
        Y = worst_case(args.rows, m)
        obj = Objective(["minimize"] * m)
        ref = obj.reference_point(Y)
        obj.hypervolume(Y[:2], ref)  # imports out of the timing
        signal.alarm(args.timeout)
        t0 = time.perf_counter()
        try:
            hv = obj.hypervolume_history(Y, ref)
        except _Timeout:
            print(f"{m} objectives: not finished in {args.timeout} s")
            continue
        finally:
            signal.alarm(0)
        dt = time.perf_counter() - t0
        print(f"{m} objectives: {dt:.3f} s, final hypervolume {hv[-1]:.10g}")


if __name__ == "__main__":
    main()
