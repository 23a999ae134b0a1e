"""turbo with black-box constraints (SCBO, Eriksson & Poloczek, AISTATS 2021)."""

from __future__ import annotations

import numpy as np
import pytest

from isoline.methods.registry import make_method
from isoline.methods.turbo import best_row, bilog, violation


def bowl_below_plane(X: np.ndarray) -> np.ndarray:
    """Objective ``|x - 0.8|^2`` in 4-D under ``sum(x) - 2 <= 0``: the unconstrained
    minimum is infeasible, the constrained one is 0.36 at ``x = 0.5``."""
    return np.c_[((X - 0.8) ** 2).sum(-1), X.sum(-1) - 2.0]


def run(name: str, seed: int, budget: int, **kw) -> np.ndarray:
    m = make_method(name, 4, seed=seed, n_init=8, n_constraints=1, batch_size=2, **kw)
    while len(m.y) < budget:
        X = m.ask()
        m.tell(X, bowl_below_plane(X))
    return m.Y


def best_feasible(Y: np.ndarray) -> float:
    ok = Y[:, 1] <= 0
    return float(Y[ok, 0].min()) if ok.any() else np.inf


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_scbo_beats_random_search(seed: int) -> None:
    sc = run("turbo", seed, 30, n_candidates=500)
    rs = run("random", seed, 30)
    assert best_feasible(sc) < best_feasible(rs)
    assert best_feasible(sc) < 0.45  # the constrained minimum is 0.36


def test_scbo_same_seed_same_trajectory() -> None:
    np.testing.assert_array_equal(run("turbo", 4, 14), run("turbo", 4, 14))


def test_feasibility_first_order() -> None:
    Y = np.array([[0.0, 2.0], [5.0, -1.0], [3.0, 0.0], [1.0, 0.5]])
    assert best_row(Y) == 2  # feasible rows 1, 2: the lower objective
    assert best_row(Y[[0, 3]]) == 1  # none feasible: the least violation
    np.testing.assert_allclose(violation(Y), [2.0, 0.0, 0.0, 0.5])
    np.testing.assert_allclose(bilog(np.array([-np.e + 1, 0.0, np.e - 1])), [-1.0, 0.0, 1.0])


def test_success_is_judged_on_feasibility_first() -> None:
    m = make_method("turbo", 2, seed=0, n_init=2, n_constraints=1)
    m.tell(np.array([[0.1, 0.1], [0.2, 0.2]]), np.array([[0.0, 1.0], [1.0, 0.5]]))
    m.tell(np.array([[0.3, 0.3]]), np.array([[9.0, 0.2]]))  # less violation: a success
    assert (m.n_success, m.n_failure) == (1, 0)
    m.tell(np.array([[0.4, 0.4]]), np.array([[5.0, -1.0]]))  # first feasible: a success
    assert (m.n_success, m.n_failure) == (2, 0)
    m.tell(np.array([[0.5, 0.5]]), np.array([[-3.0, 0.1]]))  # lower but infeasible
    assert (m.n_success, m.n_failure) == (0, 1)
    m.tell(np.array([[0.6, 0.6]]), np.array([[4.0, np.nan]]))  # failed
    assert (m.n_success, m.n_failure) == (0, 2)
    m.tell(np.array([[0.7, 0.7]]), np.array([[4.0, -0.1]]))  # feasible and better
    assert (m.n_success, m.n_failure) == (1, 0)
