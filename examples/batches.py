"""Batches on a process pool, stored and resumable.

Four points per step are evaluated in four worker processes; every evaluation is
committed to ``batches.db`` as it arrives. Stop the script (Ctrl-C) and start it again:
it resumes the study where it stopped, with the same trajectory.

Usage::

    python examples/batches.py
"""

from __future__ import annotations

import isoline as iso

BUDGET = 16  # four batches of 4


def main() -> None:
    problem = iso.problems.get("ackley", dim=4, seed=0)  # picklable: workers can take it
    res = iso.minimize(
        problem,
        problem.space,
        method="cma-es",
        budget=BUDGET,
        batch_size=4,
        executor="process",
        storage="batches.db",
        study="ackley-cma-es",
        seed=0,
    )
    print(f"{res.n_evals} evaluations, best {res.fun:.3f} (optimum {problem.optimum})")


if __name__ == "__main__":
    main()
