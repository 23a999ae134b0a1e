"""Warm start: known evaluations and points to evaluate first."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import isoline as iso
from isoline.store import StoreError


def _f(x: np.ndarray) -> float:
    return float(np.sum((np.asarray(x) - 0.3) ** 2))


BOX = iso.Box([-1.0, -1.0], [1.0, 1.0])


def test_known_values_count_neither_in_budget_nor_in_result() -> None:
    x0 = np.array([[0.3, 0.3], [0.9, -0.9]])
    res = iso.minimize(_f, BOX, "gp-ei", budget=6, seed=0, n_init=4, x0=x0, y0=[_f(x) for x in x0])
    assert res.n_evals == 6
    assert not any(np.allclose(x, x0[0]) for x in res.x_iters)
    assert res.options["x0"] == x0.tolist()


def test_points_without_values_are_evaluated_first() -> None:
    x0 = np.array([[0.3, 0.3], [0.9, -0.9]])
    res = iso.minimize(_f, BOX, "gp-ei", budget=5, seed=0, n_init=4, x0=x0)
    np.testing.assert_allclose(res.x_iters[:2], x0)
    assert res.n_evals == 5 and res.fun == pytest.approx(0.0)


def test_y0_needs_x0_and_matching_lengths() -> None:
    with pytest.raises(ValueError, match="x0"):
        iso.minimize(_f, BOX, "random", budget=2, y0=[1.0])
    with pytest.raises(ValueError, match="y0 has 2 values but x0 has 1 points"):
        iso.minimize(_f, BOX, "random", budget=2, x0=[[0.0, 0.0]], y0=[1.0, 2.0])
    with pytest.raises(ValueError, match="y0 has one value but x0 has 2 points"):
        iso.minimize(_f, BOX, "random", budget=2, x0=[[0.0, 0.0], [0.1, 0.1]], y0=1.0)
    with pytest.raises(ValueError, match="outside"):
        iso.minimize(_f, BOX, "random", budget=2, x0=[[5.0, 0.0]], y0=[1.0])


def test_resume_needs_the_same_known_data(tmp_path: Path) -> None:
    db = str(tmp_path / "w.db")
    x0, y0 = [[0.2, 0.2]], [_f(np.array([0.2, 0.2]))]
    first = iso.minimize(_f, BOX, "gp-ei", budget=4, seed=1, n_init=3, storage=db, study="s",
                         x0=x0, y0=y0)  # fmt: skip
    more = iso.minimize(_f, BOX, "gp-ei", budget=6, seed=1, n_init=3, storage=db, study="s",
                        x0=x0, y0=y0)  # fmt: skip
    np.testing.assert_array_equal(more.x_iters[:4], first.x_iters)
    with pytest.raises(StoreError, match="x0"):
        iso.minimize(_f, BOX, "gp-ei", budget=7, seed=1, n_init=3, storage=db, study="s")


def test_cma_es_starts_from_the_best_known_point() -> None:
    """Known data moves CMA-ES's first generation to the best known point (a run given
    the data differs from one without it); an explicit x0 option still wins."""
    known = np.array([[0.3, 0.3], [-0.8, 0.9], [0.9, -0.6]])
    y = [_f(x) for x in known]
    cold = iso.minimize(_f, BOX, "cma-es", budget=6, seed=0)
    warm = iso.minimize(_f, BOX, "cma-es", budget=6, seed=0, x0=known, y0=y)
    assert not np.allclose(warm.x_iters, cold.x_iters)
    centre = np.mean(warm.x_iters, axis=0)
    assert np.linalg.norm(centre - 0.3) < np.linalg.norm(np.mean(cold.x_iters, axis=0) - 0.3)
    centred = iso.Optimizer(BOX, "cma-es", seed=0, x0=[0.5, 0.5])
    pinned = iso.Optimizer.from_history(BOX, known, y, method="cma-es", seed=0, x0=[0.5, 0.5])
    np.testing.assert_array_equal(pinned.ask(), centred.ask())


@pytest.mark.parametrize("method", ["random", "sobol"])
def test_design_methods_go_on_past_an_earlier_runs_points(method: str) -> None:
    """Warm-started with an earlier run's evaluations and seed, random and Sobol search
    continue that run: the points a longer run would have drawn next, none repeated."""
    first = iso.minimize(_f, BOX, method, budget=7, seed=3)
    warm = iso.minimize(_f, BOX, method, budget=5, seed=3, x0=first.x_iters, y0=first.func_vals)
    longer = iso.minimize(_f, BOX, method, budget=12, seed=3)
    np.testing.assert_allclose(longer.x_iters[:7], first.x_iters)
    np.testing.assert_allclose(warm.x_iters, longer.x_iters[7:])


def test_from_history_on_a_typed_space_skips_known_configurations() -> None:
    space = iso.Space({"k": iso.Integer(0, 3), "c": iso.Categorical(["a", "b"])})
    known = [{"k": k, "c": c} for k in range(3) for c in "ab"]
    opt = iso.Optimizer.from_history(space, known, [float(c["k"]) for c in known],
                                     method="random", seed=0)  # fmt: skip
    asked = opt.ask(2)
    assert sorted(iso.Space.key(c) for c in asked) == sorted(
        iso.Space.key({"k": 3, "c": c}) for c in "ab"
    )


def test_cma_es_searches_integers_in_index_coordinates() -> None:
    space = iso.Space({f"k{i}": iso.Integer(-20, 20) for i in range(4)})
    res = iso.minimize(lambda c: sum((v - 7) ** 2 for v in c.values()), space, "cma-es",
                       budget=250, seed=0)  # fmt: skip
    assert res.fun == 0
    assert all(type(v) is int for c in res.x_iters for v in c.values())
