"""Black-box constraints in COBYQA and CMA-ES, and the methods that refuse them."""

from __future__ import annotations

import pickle
from collections.abc import Callable

import numpy as np
import pytest

import isoline as iso
from isoline.methods.base import Method
from isoline.methods.classic import CMAES, RandomSearch
from isoline.methods.cobyqa import COBYQA
from isoline.methods.registry import get_method

Outputs = Callable[[np.ndarray], np.ndarray]


def disk_and_plane(x: np.ndarray) -> np.ndarray:
    """``(f, g1, g2)`` in 4 d: the unconstrained minimum (0.8, ...) violates both
    constraints; the constrained one has both active, f = 0.6681 at
    ``(a, a, 0.8 - a, 0.8 - a)``, ``a = sqrt(0.1)``."""
    return np.array([np.sum((x - 0.8) ** 2), np.sum(x) - 1.6, x[0] ** 2 + x[1] ** 2 - 0.2])


def weighted_below_plane(x: np.ndarray) -> np.ndarray:
    """``(f, g)`` in 6 d: a weighted bowl centred at 0.9, feasible when the first three
    coordinates sum to at most 0.9; constrained minimum f = 1.767."""
    return np.array([np.sum(np.arange(1, 7) * (x - 0.9) ** 2), np.sum(x[:3]) - 0.9])


DISK_OPTIMUM = 2 * (0.8 - np.sqrt(0.1)) ** 2 + 0.2


def run(method: Method, outputs: Outputs, budget: int) -> Method:
    while len(method.y) < budget:
        X = method.ask()
        method.tell(X, np.array([outputs(x) for x in X]))
    return method


def best_feasible(method: Method) -> float:
    ok = np.all(method.Y[:, 1:] <= 0, axis=1)
    return float(method.Y[ok, 0].min()) if ok.any() else np.inf


SEEDS = range(4)


def test_cobyqa_reaches_the_constrained_minimum_and_beats_random_search():
    for seed in SEEDS:
        m = run(COBYQA(4, seed=seed, n_constraints=2), disk_and_plane, 60)
        rs = run(RandomSearch(4, seed=seed, n_constraints=2, batch_size=10), disk_and_plane, 60)
        assert m.best is not None  # ends with a feasible best
        x, f = m.best
        assert np.all(disk_and_plane(x)[1:] <= 0)
        assert f == pytest.approx(DISK_OPTIMUM, abs=1e-3)
        assert f < best_feasible(rs)


def test_cma_es_best_feasible_beats_random_search():
    for seed in SEEDS:
        # one generation (9 points) per ask
        m = run(CMAES(6, seed=seed, n_constraints=1, batch_size=9), weighted_below_plane, 200)
        rs = run(
            RandomSearch(6, seed=seed, n_constraints=1, batch_size=10), weighted_below_plane, 200
        )
        assert m.best is not None  # ends with a feasible best
        assert weighted_below_plane(m.best[0])[1] <= 0
        assert best_feasible(m) < best_feasible(rs)


@pytest.mark.parametrize(
    ("make", "outputs"),
    [
        (lambda: COBYQA(4, seed=3, n_constraints=2), disk_and_plane),
        (lambda: CMAES(6, seed=3, n_constraints=1), weighted_below_plane),
    ],
)
def test_same_seed_same_trajectory_and_pickles_mid_run(make, outputs):
    a, b = run(make(), outputs, 30), run(make(), outputs, 30)
    np.testing.assert_array_equal(a.X, b.X)
    copy = pickle.loads(pickle.dumps(a))
    run(a, outputs, 50), run(copy, outputs, 50)
    np.testing.assert_array_equal(a.X, copy.X)


@pytest.mark.parametrize(
    ("make", "outputs", "budget"),
    [
        (lambda: COBYQA(4, seed=0, n_constraints=2), disk_and_plane, 60),
        (lambda: CMAES(6, seed=0, n_constraints=1, batch_size=9), weighted_below_plane, 81),
    ],
)
def test_failed_objectives_and_constraints_do_not_stop_the_run(make, outputs, budget):
    m = make()
    while len(m.y) < budget:
        X = m.ask()
        Y = np.array([outputs(x) for x in X])
        Y[X[:, 0] > 0.7, 0] = np.nan  # a region where the objective fails
        Y[X[:, 1] > 0.7, -1] = np.nan  # and one where a constraint does
        m.tell(X, Y)
    assert len(m.y) == budget and np.isnan(m.y).any()
    if isinstance(m, COBYQA):
        assert m.best is not None and m.best[1] == pytest.approx(DISK_OPTIMUM, abs=1e-3)
    else:
        assert np.all(np.isfinite(m._al.cfun.al.lam))


def test_cma_es_without_constraints_leaves_no_lagrangian():
    assert CMAES(3, seed=0)._al is None


def adaptive_methods_without_constraints() -> list[str]:
    names = []
    for info in iso.methods():
        cls = get_method(info.name)
        if cls.adaptive and not cls.supports_constraints and not info.name.startswith("gp-"):
            names.append(info.name)
    return [n for n in names if n != "turbo"]  # GP methods: their own tests


@pytest.mark.parametrize("name", adaptive_methods_without_constraints())
def test_other_methods_refuse_constraints(name):
    with pytest.raises(ValueError, match="constraint"):
        get_method(name)(2, seed=0, n_constraints=1)


def test_constraint_handlers_declare_it():
    assert COBYQA.supports_constraints and CMAES.supports_constraints
    assert COBYQA.max_objectives == CMAES.max_objectives == 1
