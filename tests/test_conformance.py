"""One suite every registered method must pass (present and future ones).

Like Optuna's sampler tests and scikit-learn's common estimator checks: a method is added
to the registry and this suite runs on it with no further code.
"""

from __future__ import annotations

import functools
import pickle

import numpy as np
import pytest

import isoline as iso
from isoline.methods.registry import get_method

METHODS = [m.name for m in iso.methods()]
BATCH_METHODS = [m.name for m in iso.methods() if m.supports_batch]
ADAPTIVE_METHODS = [name for name in METHODS if get_method(name).adaptive]


def sphere(x: np.ndarray) -> float:
    """Smooth bowl with its minimum 0 off the box centre."""
    return float(np.sum((np.asarray(x) - 0.35) ** 2))


def box(d: int) -> iso.Box:
    return iso.Box([-1.0] * d, [2.0] * d)


@pytest.mark.parametrize("method", METHODS)
def test_ask_shapes_and_bounds(method: str) -> None:
    space = iso.Box([-5.0, 10.0, 0.0], [5.0, 20.0, 1e-3])
    opt = iso.Optimizer(space, method, seed=3, n_init=4)
    for _ in range(7):
        X = opt.ask()
        assert X.shape == (1, 3)
        assert np.all(space.contains(X))
        opt.tell(X, [float(np.sum(space.to_unit(X) ** 2))])
    x, y = opt.best
    assert x.shape == (3,) and np.isfinite(y)
    assert opt.history[0].shape == (7, 3)


@pytest.mark.parametrize("method", METHODS)
def test_same_seed_same_points(method: str) -> None:
    runs = [iso.minimize(sphere, box(3), method, budget=9, seed=11, n_init=4) for _ in range(2)]
    np.testing.assert_array_equal(runs[0].x_iters, runs[1].x_iters)
    other = iso.minimize(sphere, box(3), method, budget=9, seed=12, n_init=4)
    assert not np.array_equal(runs[0].x_iters, other.x_iters)


@pytest.mark.parametrize("method", BATCH_METHODS)
def test_batches(method: str) -> None:
    opt = iso.Optimizer(box(2), method, seed=0, batch_size=3, n_init=3)
    for _ in range(3):
        X = opt.ask()
        assert X.shape == (3, 2)
        assert len({x.tobytes() for x in X}) == 3, "a batch repeats a point"
        opt.tell(X, [sphere(x) for x in X])
    assert opt.ask(2).shape == (2, 2)


def test_non_batch_methods_refuse_batches() -> None:
    for name in sorted(set(METHODS) - set(BATCH_METHODS)):
        with pytest.raises(ValueError, match="batch"):
            iso.Optimizer(box(2), name, batch_size=2)


@pytest.mark.parametrize("method", METHODS)
def test_failures_are_recorded_and_run_goes_on(method: str) -> None:
    calls = {"n": 0}

    def flaky(x: np.ndarray) -> float:
        calls["n"] += 1
        k = calls["n"] % 4
        if k == 1:
            raise RuntimeError("simulator crashed")
        if k == 2:
            return float("nan")
        if k == 3:
            return float("inf")
        return sphere(x)

    res = iso.minimize(flaky, box(2), method, budget=12, seed=0, n_init=4)
    assert res.n_evals == 12
    assert res.n_failed == 9
    assert res.status.count("ok") == 3
    assert any("simulator crashed" in (e or "") for e in res.errors)
    assert any("nan" in (e or "") for e in res.errors)
    assert np.isfinite(res.fun)


@pytest.mark.parametrize("method", METHODS)
def test_all_failures_then_success(method: str) -> None:
    res = iso.minimize(lambda x: float("nan"), box(2), method, budget=6, seed=0, n_init=2,
                       max_initial_failures=None)
    assert res.n_failed == 6 and res.x is None and np.isnan(res.fun)


@pytest.mark.parametrize("method", METHODS)
def test_resume_after_interrupt_reproduces_trajectory(method: str, tmp_path) -> None:
    kw = dict(budget=12, seed=5, batch_size=1, n_init=4)
    if get_method(method).supports_batch:
        kw["batch_size"] = 2
    full = iso.minimize(sphere, box(3), method, **kw)

    calls = {"n": 0}

    def crashing(x: np.ndarray) -> float:
        calls["n"] += 1
        if calls["n"] == 8:
            raise KeyboardInterrupt
        return sphere(x)

    db = tmp_path / "runs.db"
    with pytest.raises(KeyboardInterrupt):
        iso.minimize(crashing, box(3), method, storage=str(db), study="s", **kw)
    resumed = iso.minimize(sphere, box(3), method, storage=str(db), study="s", **kw)
    assert resumed.n_evals == 12
    np.testing.assert_allclose(resumed.x_iters, full.x_iters)
    np.testing.assert_allclose(resumed.func_vals, full.func_vals)


@pytest.mark.parametrize("method", METHODS)
def test_state_is_picklable(method: str) -> None:
    opt = iso.Optimizer(box(2), method, seed=0, n_init=3)
    for _ in range(5):
        X = opt.ask()
        opt.tell(X, [sphere(x) for x in X])
    clone = pickle.loads(pickle.dumps(opt))
    np.testing.assert_array_equal(clone.ask(), opt.ask())


def test_unknown_option_is_named() -> None:
    for name in METHODS:
        with pytest.raises(TypeError, match="no_such_option"):
            iso.Optimizer(box(2), name, no_such_option=1)


def _mean_final(method: str, d: int, budget: int, seeds: range) -> float:
    return float(
        np.mean([iso.minimize(sphere, box(d), method, budget=budget, seed=s).fun for s in seeds])
    )


@functools.cache
def _random_mean_final(d: int, budget: int) -> float:
    """Random search's mean final value over 20 seeds (shared by every method's test)."""
    return _mean_final("random", d, budget, range(20))


@pytest.mark.slow
@pytest.mark.parametrize("method", ADAPTIVE_METHODS)
@pytest.mark.parametrize("d,budget", [(2, 20), (6, 40)])
def test_clear_gain_over_random(method: str, d: int, budget: int) -> None:
    random_final = _random_mean_final(d, budget)
    final = _mean_final(method, d, budget, range(2))
    assert final < 0.5 * random_final, f"{method}: {final:.4g} vs random {random_final:.4g}"
