"""gp-ei-cobyqa: gp-ei, then one COBYQA run from the best feasible point."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import isoline as iso
from isoline.methods.gp_local import GPEILocal, local_evaluations
from isoline.methods.registry import make_method

#: min ((x - 0.7)^2).sum() subject to x0 + x1 <= 1: the optimum (0.5, 0.5), value 0.08
OPTIMUM = 0.08


def rows(X: np.ndarray) -> np.ndarray:
    f = ((X - 0.7) ** 2).sum(axis=1)
    return np.column_stack([f, X[:, 0] + X[:, 1] - 1.0])


def run(m: GPEILocal, n: int) -> GPEILocal:
    for _ in range(n):
        X = m.ask(1)
        m.tell(X, rows(X))
    return m


def local_method(**options: object) -> GPEILocal:
    m = make_method("gp-ei-cobyqa", 2, seed=3, n_constraints=1, ei="logei", **options)
    assert isinstance(m, GPEILocal)
    return m


def test_the_local_run_starts_at_the_best_feasible_point_and_refines_it():
    m = run(local_method(local_after=20), 20)
    before = m.best
    assert before is not None and m.local is None  # gp-ei so far
    m = run(m, 15)
    assert m.local is not None
    np.testing.assert_array_equal(m.local.X[0], before[0])  # COBYQA's start
    assert len(m.local.X) == 15  # it proposed and was told every point since
    best = m.best
    assert best is not None and best[1] - OPTIMUM < 1e-6 < before[1] - OPTIMUM


def test_budget_leaves_the_local_evaluations_to_cobyqa():
    assert local_evaluations(2, 60) == 15 and local_evaluations(10, 60) == 30
    assert local_evaluations(10, 100) == 41
    assert local_method(budget=60).local_after == 45
    assert local_method().local_after == 20  # no budget: 10 d


def test_minimize_passes_its_budget():
    box = iso.Box([0.0, 0.0], [1.0, 1.0])

    def f(x: np.ndarray) -> dict[str, float]:
        return {"f": float(((x - 0.7) ** 2).sum()), "g": float(x[0] + x[1] - 1.0)}

    opt = iso.Optimizer(box, "gp-ei-cobyqa", seed=0, budget=24, objectives=["f"],
                        constraints=["g"])  # fmt: skip
    assert opt.method.local_after == 24 - local_evaluations(2, 24)


def test_without_a_feasible_point_gp_ei_goes_on():
    m = local_method(local_after=6)
    for _ in range(10):
        X = m.ask(1)
        m.tell(X, np.column_stack([rows(X)[:, 0], np.ones(1)]))  # never feasible
    assert m.local is None


def test_pending_points_and_batches_stay_with_gp_ei():
    m = run(local_method(local_after=8), 8)
    X = m.ask(2)
    assert m.local is None and X.shape == (2, 2)


def test_a_converged_local_run_hands_back_to_gp_ei():
    m = run(local_method(local_after=8), 48)  # a quadratic: COBYQA converges in 2-D
    assert m.local is not None and m.local.ended
    assert len(m.local.X) < 40 and len(m.X) == 48  # gp-ei proposed the rest


def test_pickles_mid_run_and_the_copy_continues_alike():
    m = run(local_method(local_after=10), 14)
    clone = pickle.loads(pickle.dumps(m))
    a, b = run(m, 3), run(clone, 3)
    np.testing.assert_allclose(a.X, b.X, atol=1e-9)


@pytest.mark.parametrize("options, text", [({"local_after": -1}, "local_after"),
                                           ({"local_radius": 0.0}, "local_radius"),
                                           ({"budget": 0}, "budget")])  # fmt: skip
def test_bad_options_are_named(options, text):
    with pytest.raises(ValueError, match=text):
        local_method(**options)


def test_a_stored_study_resumes_only_with_its_budget(tmp_path):
    box, db = iso.Box([0.0, 0.0], [1.0, 1.0]), str(tmp_path / "s.db")

    def f(x: np.ndarray) -> float:
        return float(((np.asarray(x) - 0.3) ** 2).sum())

    iso.minimize(f, box, "gp-ei-cobyqa", budget=6, seed=0, storage=db, study="s")
    with pytest.raises(iso.StoreError, match="option budget: stored 6, given 12"):
        iso.minimize(f, box, "gp-ei-cobyqa", budget=12, seed=0, storage=db, study="s")
    again = iso.minimize(f, box, "gp-ei-cobyqa", budget=6, seed=0, storage=db, study="s")
    assert len(again.func_vals) == 6
