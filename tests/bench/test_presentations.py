"""benchmarks/field/presentations.py: one contender on two presentations of a problem."""

from __future__ import annotations

from pathlib import Path

import numpy as np

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "field" / "presentations.py"


def test_runs_pair_across_the_twin_labels_by_seed(script) -> None:
    final = {
        ("P", 0, "A"): 1.0, ("P linear", 0, "A"): 0.5, ("P", 0, "R"): 0.7,
        ("P", 1, "A"): 2.0, ("P linear", 1, "A"): 3.0,  # no R on seed 1
        ("P", 2, "A"): 4.0,  # no twin run on seed 2
        ("Q", 0, "A"): 9.0, ("Q linear", 0, "A"): 8.0, ("Q linear", 0, "R"): 0.0,
    }  # fmt: skip
    cells, pairs = script.paired(final, ["P", "Q"], (" linear", "A"), ("", "A"))
    assert cells == ["P/seed0", "P/seed1", "Q/seed0"]
    assert np.array_equal(pairs, [[0.5, 1.0], [3.0, 2.0], [8.0, 9.0]])
    cells, pairs = script.paired(final, ["P", "Q"], (" linear", "A"), ("", "R"))
    assert cells == ["P/seed0"] and np.array_equal(pairs, [[0.5, 0.7]])
