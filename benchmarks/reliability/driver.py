"""One driver process of the crash benchmark: runs (or resumes) one study to its end.

python driver.py STORE STUDY METHOD BATCH EXECUTOR LOG BUDGET. Every finished evaluation
appends its trial number to LOG, so the harness can tell which evaluations ran more than
once. ``max_attempts`` is raised above the number of kills: the harness's kills are not the
point's fault, and its kill moments cluster at evaluation starts, so the default (3) would
record an evaluation killed three times in a row as failed (the behaviour
``tests/test_reliability.py`` checks) instead of measuring resume.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

import isoline as iso

DIM, N_INIT, SEED, MAX_ATTEMPTS = 3, 4, 7, 100


class LoggedObjective:
    """A shifted sphere with its minimum near a bound; ~50 ms per evaluation."""

    takes_trial_number = True

    def __init__(self, log: str) -> None:
        self.log = log

    def __call__(self, x: np.ndarray, number: int | None = None) -> float:
        time.sleep(0.05)
        y = float(np.sum((x - 1.8) ** 2))
        with open(self.log, "a") as fh:
            fh.write(f"{number}\n")
            fh.flush()
            os.fsync(fh.fileno())
        return y


def main() -> None:
    store, study, method, batch, executor, log, budget = sys.argv[1:8]
    iso.minimize(
        LoggedObjective(log),
        iso.Box([-2.0] * DIM, [2.0] * DIM),
        method,
        budget=int(budget),
        max_attempts=MAX_ATTEMPTS,
        seed=SEED,
        batch_size=int(batch),
        n_init=N_INIT,
        executor=None if executor == "none" else executor,
        storage=store,
        study=study,
    )


if __name__ == "__main__":
    main()
