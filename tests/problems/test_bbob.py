"""BBOB through cocoex; skipped when coco-experiment is missing."""

from __future__ import annotations

import pickle
import sys

import numpy as np
import pytest

from isoline import problems
from isoline.problems.bbob import TARGET_PRECISIONS, fraction_of_pairs_solved

cocoex = pytest.importorskip("cocoex")


@pytest.mark.parametrize("function", range(1, 25))
def test_every_function_matches_cocoex_and_its_optimum(function: int) -> None:
    p = problems.get("bbob", dim=3, function=function, seed=0)
    ref = cocoex.BareProblem("bbob", function, 3, 1)
    assert p.instance == 1 and p.coco_id == f"bbob_f{function:03d}_i01_d03"
    x = np.array([1.0, -2.0, 0.5])
    assert p(x) == pytest.approx(ref(x), rel=1e-12)
    assert p.optimum == ref.best_value()
    assert p.noise_free(p.optimum_x) == pytest.approx(p.optimum, abs=1e-8)
    assert np.all(p.space.lower == -5) and np.all(p.space.upper == 5)


def test_seed_selects_the_instance() -> None:
    a = problems.get("bbob", dim=2, function=3, seed=4)
    b = problems.get("bbob", dim=2, function=3, seed=0, instance=5)
    assert a.instance == b.instance == 5 and a.optimum == b.optimum
    assert problems.get("bbob", dim=2, function=3, seed=0).optimum != a.optimum


def test_targets_and_fraction_solved() -> None:
    p = problems.get("bbob", dim=2, function=1)
    assert p.targets.shape == (51,) and p.targets[0] == pytest.approx(p.optimum + 100)
    assert p.targets[-1] == pytest.approx(p.optimum + 1e-8)
    assert np.all(np.diff(p.targets) < 0)
    y = np.array([p.optimum + 1e3, p.optimum + 1.0, p.optimum + 5.0, p.optimum])
    frac = p.fraction_solved(y)
    assert frac[0] == 0.0
    assert frac[1] == pytest.approx(np.mean(TARGET_PRECISIONS >= 1.0)) == frac[2]
    assert frac[3] == 1.0
    q = problems.get("bbob", dim=2, function=2)
    both = fraction_of_pairs_solved([(p, y), (q, np.full(4, q.optimum + 1e9))])
    np.testing.assert_allclose(both, frac / 2)
    with pytest.raises(ValueError, match="same number"):
        fraction_of_pairs_solved([(p, y), (q, y[:2])])


def test_pickles() -> None:
    p = problems.get("bbob", dim=5, function=15)
    q = pickle.loads(pickle.dumps(p))
    x = np.linspace(-1, 1, 5)
    assert q(x) == p(x)


def test_bad_input(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match="1..24"):
        problems.get("bbob", dim=2, function=25)
    with pytest.raises(ValueError, match="instance"):
        problems.get("bbob", dim=2, instance=0)
    with pytest.raises(ValueError, match="allowed: 2, 3, 5, 10, 20, 40"):
        problems.get("bbob", dim=4)
    monkeypatch.setitem(sys.modules, "cocoex", None)
    with pytest.raises(ImportError, match=r'pip install "isoline\[bbob\]"'):
        problems.get("bbob", dim=2)
