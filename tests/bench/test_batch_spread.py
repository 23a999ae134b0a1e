"""benchmarks/field/batch_spread.py: distance of late batches from the incumbent."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from isoline.store import Trial

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "field" / "batch_spread.py"


def _trial(number: int, batch: int, u: list[float], y: float | None) -> Trial:
    status = "ok" if y is not None else "failed"
    return Trial(number, batch, None, np.array(u), y, status, None, None, None, None)


def test_each_batch_is_measured_from_the_incumbent_before_it(script) -> None:
    trials = [
        _trial(0, 0, [0.0, 0.0], 1.0),
        _trial(1, 0, [1.0, 1.0], 0.5),  # the incumbent before batch 1
        _trial(2, 1, [1.0, 0.0], 0.1),  # distance 1 / sqrt 2
        _trial(3, 1, [1.0, 1.0], None),  # distance 0 (a failed evaluation still counts)
        _trial(4, 1, [0.0, 0.0], 2.0),  # distance sqrt 2 / sqrt 2 = 1
        _trial(5, 2, [1.0, 0.0], 3.0),  # incumbent now trial 2: distance 0
    ]
    one = np.sqrt(0.5)  # median of batch 1
    assert np.isclose(script.late_batch_distance(trials, 1), (one + 0.0) / 2)
    assert np.isclose(script.late_batch_distance(trials, 2), 0.0)
    assert np.isnan(script.late_batch_distance(trials, 3))
