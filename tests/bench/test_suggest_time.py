from __future__ import annotations

import numpy as np
import pytest

from isoline.bench.run_data import _suggest_time
from isoline.store import Trial


def _trial(number: int, batch: int, started: float, finished: float | None) -> Trial:
    return Trial(number, batch, [0.0], np.zeros(1), 1.0, "ok", None, None, started, finished)


def test_suggestion_time_sums_the_gaps_before_each_batch() -> None:
    # created at 0; batch 0 (two points) starts at 1.0, ends at 3.0 and 2.5; batch 1
    # starts at 3.5 and ends at 4.0; batch 2 starts at 6.0
    trials = [_trial(0, 0, 1.0, 3.0), _trial(1, 0, 1.2, 2.5), _trial(2, 1, 3.5, 4.0),
              _trial(3, 2, 6.0, None)]  # fmt: skip
    assert _suggest_time(trials, 0.0, []) == pytest.approx(1.0 + 0.5 + 2.0)
    # resumed at 5.5 (after an interruption and the replay): batch 2 counts from there
    assert _suggest_time(trials, 0.0, [5.5]) == pytest.approx(1.0 + 0.5 + 0.5)
    # a resume before the study's first batch (created, interrupted, resumed at 0.8)
    assert _suggest_time(trials, 0.0, [0.8]) == pytest.approx(0.2 + 0.5 + 2.0)
