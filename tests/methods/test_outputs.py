"""Methods and several outputs: rows told, feasibility, the capability refusal."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from isoline.methods.registry import capable_methods, make_method


def test_rows_are_kept_and_the_first_objective_is_y() -> None:
    m = make_method("random", 2, seed=0, n_objectives=2, n_constraints=1)
    X = m.ask(3)
    Y = np.array([[1.0, 2.0, 0.5], [3.0, np.nan, -1.0], [2.0, 0.0, -1.0]])
    m.tell(X, Y)
    assert m.Y.shape == (3, 3)
    assert np.isnan(m.Y[1]).all() and np.isnan(m.y[1])  # NaN anywhere fails the row
    np.testing.assert_array_equal(m.y, m.Y[:, 0])
    np.testing.assert_array_equal(m.feasible(), [False, False, True])
    x, y = m.best
    np.testing.assert_array_equal(x, X[2])
    assert y == 2.0
    m.tell(m.ask(1), np.array([0.0, 0.0, 0.0]))  # one row given flat
    assert m.Y.shape == (4, 3) and m.best[1] == 0.0
    with pytest.raises(ValueError, match=r"expected \(n, 2\), \(n, 3\)"):
        m.tell(m.ask(2), np.zeros(2))
    copy = pickle.loads(pickle.dumps(m))
    np.testing.assert_array_equal(copy.Y, m.Y)


def test_best_is_none_when_nothing_is_feasible() -> None:
    m = make_method("sobol", 1, n_objectives=1, n_constraints=1)
    m.tell(m.ask(2), np.array([[0.0, 1.0], [1.0, 0.5]]))
    assert m.best is None


def test_one_output_methods_are_unchanged() -> None:
    m = make_method("random", 1)
    m.tell(m.ask(2), np.array([2.0, 1.0]))
    assert m.Y.shape == (2, 1) and m.best[1] == 1.0


def test_a_method_beyond_its_capability_is_refused_naming_capable_ones() -> None:
    able = capable_methods(2, 0)
    assert able and "gibo" not in able
    with pytest.raises(ValueError, match="method 'gibo' handles one objective without") as e:
        make_method("gibo", 2, n_objectives=2)
    assert f"for 2 objectives use one of: {', '.join(able)}" in str(e.value)
    with pytest.raises(ValueError, match="for constraints use one of"):
        make_method("bkop", 2, n_constraints=1)
    with pytest.raises(ValueError, match="n_objectives"):
        make_method("random", 2, n_objectives=0)
