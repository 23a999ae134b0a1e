"""benchmarks/field/variants.py: variants ranked against a committed finals.npz."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "field" / "variants.py"


def _finals(path: Path) -> None:
    cells = np.array(["p/seed0", "p/seed1", "q/seed0"])
    F = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    np.savez(path, F=F, labels=np.array(["base", "random"]), cells=cells)


def test_committed_contenders_join_the_stores_variants_on_shared_cells(script, tmp_path) -> None:
    _finals(tmp_path / "f.npz")
    labels, cells, F = script._with_finals(
        str(tmp_path / "f.npz"),
        ["v"],
        [("q", 0), ("r", 0), ("p", 1)],
        np.array([[7.0], [8.0], [9.0]]),
    )
    assert labels == ["base", "random", "v"]
    assert cells == [("q", 0), ("p", 1)]
    np.testing.assert_array_equal(F, [[5.0, 6.0, 7.0], [3.0, 4.0, 9.0]])


def test_a_variant_labelled_as_a_committed_contender_is_refused(script, tmp_path) -> None:
    _finals(tmp_path / "f.npz")
    with pytest.raises(SystemExit, match="already has the contenders"):
        script._with_finals(str(tmp_path / "f.npz"), ["base"], [("p", 0)], np.zeros((1, 1)))
