"""The field summary's tables (benchmarks/field/field.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "field" / "field.py"


def test_per_problem_table_ranks_auto_as_a_stand_in(script: Any) -> None:
    labels = ["a", "b", "isoline auto"]
    cells = [("p", 0), ("p", 1), ("q", 0)]
    F = np.array([[1.0, 2.0, 1.0], [2.0, 1.0, 2.0], [3.0, 1.0, 5.0]])
    rows = script._per_problem(labels, F, cells, auto=2)
    # a and b are ranked without auto; auto takes the place of the run it repeats (a's
    # in both p cells), or ranks as one more contender (q: last of three)
    assert rows == [
        {"contender": "b", "p (2)": "1.50 (1.5)", "q (1)": "1.00 (1)"},
        {"contender": "a", "p (2)": "1.50 (1.5)", "q (1)": "2.00 (3)"},
        {"contender": "isoline auto", "p (2)": "1.50 (1.5)", "q (1)": "3.00 (5)"},
    ]
    rows = script._per_problem(labels[:2], F[:, :2], cells, auto=None)
    assert [r["contender"] for r in rows] == ["b", "a"]
