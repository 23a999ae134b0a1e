"""The conformance checks every isoline method passes, for methods written anywhere.

Like Optuna's ``optuna.testing.pytest_samplers`` and scikit-learn's
``check_estimator``: subclass :class:`MethodConformance` in a pytest module and give it a
``method`` fixture returning a registered method name; pytest then runs every check on it.
isoline's own suite does exactly that for every registered method
(``tests/test_conformance.py``). A method of your own becomes checkable by registering
it first::

    import pytest
    from isoline.methods.base import Method
    from isoline.methods.registry import register
    from isoline.testing import MethodConformance

    @register
    class MyMethod(Method):
        name = "my-method"
        ...

    class TestMyMethod(MethodConformance):
        @pytest.fixture
        def method(self) -> str:
            return "my-method"

An ``options`` fixture (empty by default) gives the method's options for the checks of
behaviour (fewer training epochs keep them fast); the defaults and gain checks ignore it.

The checks: points of the right shape inside the bounds; the same seed gives the same
points and another seed other points, also with the method's default options unless it
declares itself ``deterministic``; batches of distinct points (batch methods) or a
clear refusal; failed evaluations (an exception, NaN, inf) recorded while the run goes on;
an interrupted run resumed from its store continues the uninterrupted trajectory, and
:func:`isoline.load` reads the stored study back as the run returned it (the same
:meth:`~isoline.Result.to_dataframe`, typed values included); the
optimizer pickles and the copy continues identically; unknown options are named; known
data and enqueued points take the place of the initial-design points nearest them; on a
mixed space (log-scaled real, integer, log-scaled integer, categorical) every value has
its exact type and lies in its range, an interrupted run resumes exactly (the replay
repeats every proposal of the seed), batches hold distinct configurations and no configuration is proposed
twice while unseen ones remain; on a space with linear constraints every proposal
satisfies them, or the method refuses the space naming those that handle it; and (marked ``slow``) adaptive methods beat random
search clearly on a smooth bowl.

Needs pytest (``pip install isoline[dev]``).
"""

from __future__ import annotations

import functools
import pickle
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import isoline as iso
from isoline.methods.registry import get_method

__all__ = [
    "MethodConformance",
    "bowl",
    "conditional_bowl",
    "conditional_space",
    "mixed_bowl",
    "mixed_space",
]


def bowl(x: np.ndarray) -> float:
    """Smooth bowl with its minimum 0 at ``x = 0.35`` (off the centre of the test boxes)."""
    return float(np.sum((np.asarray(x) - 0.35) ** 2))


def _outputs(x: np.ndarray) -> dict[str, float]:
    """Named outputs for the several-output checks: ``g`` is maximized, ``c <= 0`` feasible."""
    return {"f": bowl(x), "g": float(-np.sum((x - 0.2) ** 2)), "c": float(x[0] - 0.5)}


def _box(d: int) -> iso.Box:
    return iso.Box([-1.0] * d, [2.0] * d)


#: a categorical choice that is neither a string nor a number (must come back as itself)
_NONE_CHOICE = None


def mixed_space() -> iso.Space:
    """A space with one parameter of each kind (encoded dimension 7)."""
    return iso.Space(
        {
            "lr": iso.Real(1e-4, 1e-1, log=True),
            "x": iso.Real(-2.0, 3.0),
            "layers": iso.Integer(1, 6),
            "width": iso.Integer(8, 512, log=True),
            "act": iso.Categorical(["relu", "tanh", _NONE_CHOICE]),
        }
    )


def conditional_space() -> iso.Space:
    """A space with nested conditions: ``gamma`` only for the ``rbf`` and ``poly``
    kernels, ``degree`` only for ``poly``, ``coef`` only for degrees 3 and 4."""
    return iso.Space(
        {
            "kernel": iso.Categorical(["linear", "rbf", "poly"]),
            "c": iso.Real(-2.0, 2.0),
            "gamma": iso.Real(1e-3, 1.0, log=True),
            "degree": iso.Integer(2, 5),
            "coef": iso.Categorical(["low", "high"]),
        },
        conditions={
            "gamma": {"kernel": ["rbf", "poly"]},
            "degree": {"kernel": "poly"},
            "coef": {"degree": [3, 4]},
        },
    )


def conditional_bowl(c: dict[str, Any]) -> float:
    """A function of a :func:`conditional_space` configuration that fails (raises) if it
    is given an inactive parameter or misses an active one (minimum 0)."""
    expected = {"linear": 2, "rbf": 3, "poly": 5 if c.get("degree") in (3, 4) else 4}
    if len(c) != expected[c["kernel"]]:
        raise KeyError(f"not the active parameters: {sorted(c)}")
    value = 0.3 * c["c"] ** 2 + {"linear": 1.0, "rbf": 0.0, "poly": 0.5}[c["kernel"]]
    if "gamma" in c:
        value += 0.1 * (np.log10(c["gamma"]) + 1.5) ** 2
    return float(value + 0.1 * abs(c.get("degree", 3) - 3) + 0.2 * (c.get("coef") == "low"))


def mixed_bowl(c: dict[str, Any]) -> float:
    """A smooth function of a :func:`mixed_space` configuration (minimum 0)."""
    penalty = {"relu": 0.0, "tanh": 0.3, _NONE_CHOICE: 0.6}[c["act"]]
    return float(
        (np.log10(c["lr"]) + 2.5) ** 2
        + 0.2 * (c["x"] - 0.5) ** 2
        + 0.05 * (c["layers"] - 4) ** 2
        + 0.1 * (np.log2(c["width"]) - 6) ** 2
        + penalty
    )


def _check_config(space: iso.Space, c: dict[str, Any]) -> None:
    assert list(c) == space.active(c)
    for name, p in space.params.items():
        if name not in c:
            continue
        v = c[name]
        if isinstance(p, iso.Real):
            assert type(v) is float and p.low <= v <= p.high, (name, v)
        elif isinstance(p, iso.Integer):
            assert type(v) is int and p.low <= v <= p.high, (name, v)
        else:
            assert any(v is choice for choice in p.choices), (name, v)


def _mean_final(method: str, d: int, budget: int, seeds: range) -> float:
    return float(
        np.mean([iso.minimize(bowl, _box(d), method, budget=budget, seed=s).fun for s in seeds])
    )


@functools.cache
def _random_mean_final(d: int, budget: int) -> float:
    """Random search's mean final value over 20 seeds (shared by every method's check)."""
    return _mean_final("random", d, budget, range(20))


#: the columns of :meth:`isoline.Result.to_dataframe` that the clock sets
_TIMES = ["datetime_start", "datetime_complete", "duration"]


def _interrupted_then_resumed(
    f: Any, space: iso.Space, method: str, db: str, kw: dict[str, Any]
) -> iso.Result:
    """Run ``f`` on study ``s`` of ``db`` until its sixth evaluation raises
    KeyboardInterrupt, then resume the study to the end; the resumed result."""
    calls = {"n": 0}

    def crashing(c: dict[str, Any]) -> float:
        calls["n"] += 1
        if calls["n"] == 6:
            raise KeyboardInterrupt
        return float(f(c))

    with pytest.raises(KeyboardInterrupt):
        iso.minimize(crashing, space, method, storage=db, study="s", **kw)
    return iso.minimize(f, space, method, storage=db, study="s", **kw)


def _check_loads_as_run(
    db: str, study: str, returned: iso.Result, uninterrupted: iso.Result | None = None
) -> None:
    """:func:`isoline.load` gives back the Result the run returned (its table equal, its
    parameter values of the same types), and that of the uninterrupted run but for the
    clock times."""
    import pandas as pd

    loaded = iso.load(db, study)
    table = loaded.to_dataframe()
    pd.testing.assert_frame_equal(table, returned.to_dataframe())
    assert loaded.method == returned.method and loaded.n_failed == returned.n_failed
    np.testing.assert_array_equal(loaded.func_vals, returned.func_vals)
    if isinstance(loaded.space, iso.Space):
        assert loaded.x_iters == returned.x_iters and loaded.x == returned.x
        for c in loaded.x_iters:
            _check_config(loaded.space, c)
    else:
        np.testing.assert_array_equal(loaded.x_iters, returned.x_iters)
    if uninterrupted is not None:
        pd.testing.assert_frame_equal(
            table.drop(columns=_TIMES), uninterrupted.to_dataframe().drop(columns=_TIMES)
        )


class MethodConformance:
    """pytest checks of one registered method, named by the ``method`` fixture.

    Subclasses define the fixture (``params=[...]`` runs the checks on several methods).
    """

    @pytest.fixture
    def method(self) -> str:
        raise NotImplementedError("define a `method` fixture returning a registered name")

    @pytest.fixture
    def options(self, method: str) -> dict[str, Any]:
        """Options of ``method`` for the checks of behaviour (none by default), e.g. fewer
        training epochs; the check of the defaults and the gain check ignore them."""
        return {}

    def test_ask_shapes_and_bounds(self, method: str, options: dict) -> None:
        space = iso.Box([-5.0, 10.0, 0.0], [5.0, 20.0, 1e-3])
        opt = iso.Optimizer(space, method, seed=3, n_init=4, **options)
        # ask() clips proposals into the cube, which would hide a method that steps outside
        # it: check what propose() itself returns (the optimum is the cube's corner)
        own = opt.method.propose

        def checked_propose(q: int) -> np.ndarray:
            X = np.asarray(own(q), dtype=float)
            assert np.all((X >= 0.0) & (X <= 1.0)), f"propose() left the unit cube: {X}"
            return X

        opt.method.propose = checked_propose  # type: ignore[method-assign]
        for _ in range(7):
            X = opt.ask()
            assert X.shape == (1, 3)
            assert np.all(space.contains(X))
            opt.tell(X, [float(np.sum(space.to_unit(X) ** 2))])
        best = opt.best
        assert best is not None
        x, y = best
        assert x.shape == (3,) and np.isfinite(y)
        assert opt.history[0].shape == (7, 3)

    def test_same_seed_same_points(self, method: str, options: dict) -> None:
        kw: dict[str, Any] = dict(budget=9, n_init=4, **options)
        runs = [iso.minimize(bowl, _box(3), method, seed=11, **kw) for _ in range(2)]
        np.testing.assert_array_equal(runs[0].x_iters, runs[1].x_iters)
        other = iso.minimize(bowl, _box(3), method, seed=12, **kw)
        assert not np.array_equal(runs[0].x_iters, other.x_iters)

    def test_seed_changes_the_run_with_defaults(self, method: str) -> None:
        runs = [iso.minimize(bowl, _box(3), method, budget=6, seed=s) for s in (11, 12)]
        same = np.array_equal(runs[0].x_iters, runs[1].x_iters)
        if get_method(method).deterministic:
            assert same, f"{method} declares itself deterministic, but seeds 11 and 12 differ"
        else:
            assert not same, (
                f"{method}: seeds 11 and 12 gave the same run with the default options; a "
                "method that draws nothing from its seed declares deterministic = True"
            )

    def test_batches(self, method: str, options: dict) -> None:
        if not get_method(method).supports_batch:
            with pytest.raises(ValueError, match="batch"):
                iso.Optimizer(_box(2), method, batch_size=2)
            with pytest.raises(ValueError, match="batch"):
                iso.Optimizer(_box(2), method, seed=0).ask(2)
            return
        opt = iso.Optimizer(_box(2), method, seed=0, batch_size=3, n_init=3, **options)
        for _ in range(3):
            X = opt.ask()
            assert X.shape == (3, 2)
            assert len({x.tobytes() for x in X}) == 3, "a batch repeats a point"
            opt.tell(X, [bowl(x) for x in X])
        assert opt.ask(2).shape == (2, 2)

    def test_failures_are_recorded_and_run_goes_on(
        self, method: str, options: dict, tmp_path: Path
    ) -> None:
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
            return bowl(x)

        db = str(tmp_path / "flaky.db")
        res = iso.minimize(flaky, _box(2), method, budget=12, seed=0, n_init=4, storage=db,
                           study="flaky", **options)  # fmt: skip
        assert res.n_evals == 12
        assert res.n_failed == 9
        assert res.status.count("ok") == 3
        assert any("simulator crashed" in (e or "") for e in res.errors)
        assert any("nan" in (e or "") for e in res.errors)
        assert np.isfinite(res.fun)
        _check_loads_as_run(db, "flaky", res)

    @pytest.mark.parametrize("spec", ["two objectives", "constrained"])
    def test_several_outputs_run_or_are_refused(
        self, method: str, options: dict, spec: str
    ) -> None:
        """A method runs a 2-objective or constrained specification end to end (rows,
        feasibility and front in the Result), or refuses it when built, naming the
        methods that handle it."""
        kw: dict[str, Any] = dict(objectives=["f", "g"], directions=["minimize", "maximize"])
        if spec == "constrained":
            kw = dict(objectives=["f"], constraints=["c"])
        cls = get_method(method)
        able = not cls.adaptive or (
            cls.max_objectives >= 2 if spec == "two objectives" else cls.supports_constraints
        )
        if not able:
            with pytest.raises(ValueError, match=f"method {method!r} handles .* use one of: "):
                iso.Optimizer(_box(2), method, **kw)
            return
        run: dict[str, Any] = dict(budget=5, seed=0, n_init=3, **options)
        res = iso.optimize(_outputs, _box(2), method=method, **run, **kw)
        assert res.n_evals == 5 and res.values.shape == (5, 2)
        names = [*kw["objectives"], *kw.get("constraints", [])]
        rows = [[_outputs(x)[n] for n in names] for x in res.x_iters]
        np.testing.assert_allclose(res.values, rows)
        if spec == "constrained":
            np.testing.assert_array_equal(res.feasible, res.values[:, 1] <= 0)
            assert res.fun == np.min(res.values[res.feasible, 0])
        else:
            assert len(res.pareto_front()[1]) >= 1 and res.x is None

    def test_linear_constraints_hold_or_are_refused(self, method: str, options: dict) -> None:
        """Every configuration proposed on a space with known linear constraints satisfies
        them once decoded (the optimum of the objective lies outside them, so a method is
        pushed onto their boundary), or the method refuses the space when built."""
        space = iso.Space(
            {"a": iso.Real(-1.0, 2.0), "k": iso.Integer(1, 3), "b": iso.Real(0.0, 4.0)},
            constraints=[iso.Linear({"a": 1.0, "b": 1.0}, upper=1.5),
                         iso.Linear({"a": 2.0, "b": -1.0}, lower=-1.0)],
        )  # fmt: skip
        cls = get_method(method)
        if not cls.supports_input_constraints:
            with pytest.raises(
                ValueError, match=f"method {method!r} does not handle .* use one of: "
            ):
                iso.Optimizer(space, method)
            return
        q = 2 if cls.supports_batch else 1
        opt = iso.Optimizer(space, method, seed=0, n_init=2, batch_size=q, **options)
        lin = space.input_constraints
        for _ in range(3):
            configs = opt.ask()
            assert lin.feasible(space.encode(configs)).all(), f"{method} proposed {configs}"
            for c in configs:
                assert c["a"] + c["b"] <= 1.5 + 1e-9 and 2 * c["a"] - c["b"] >= -1.0 - 1e-9
            opt.tell(configs, [(c["a"] - 2) ** 2 + (c["b"] - 4) ** 2 + c["k"] for c in configs])

    def test_all_failures(self, method: str, options: dict) -> None:
        res = iso.minimize(lambda x: float("nan"), _box(2), method, budget=6, seed=0, n_init=2,
                           max_initial_failures=None, **options)  # fmt: skip
        assert res.n_failed == 6 and res.x is None and np.isnan(res.fun)

    def test_resume_after_interrupt_reproduces_trajectory(
        self, method: str, options: dict, tmp_path: Path
    ) -> None:
        batch_size = 2 if get_method(method).supports_batch else 1
        kw: dict[str, Any] = dict(budget=12, seed=5, batch_size=batch_size, n_init=4, **options)
        full = iso.minimize(bowl, _box(3), method, **kw)
        calls = {"n": 0}

        def crashing(x: np.ndarray) -> float:
            calls["n"] += 1
            if calls["n"] == 8:
                raise KeyboardInterrupt
            return bowl(x)

        db = tmp_path / "runs.db"
        with pytest.raises(KeyboardInterrupt):
            iso.minimize(crashing, _box(3), method, storage=str(db), study="s", **kw)
        resumed = iso.minimize(bowl, _box(3), method, storage=str(db), study="s", **kw)
        assert resumed.n_evals == 12
        np.testing.assert_allclose(resumed.x_iters, full.x_iters)
        np.testing.assert_allclose(resumed.func_vals, full.func_vals)
        _check_loads_as_run(str(db), "s", resumed, full)

    def test_state_is_picklable(self, method: str, options: dict) -> None:
        opt = iso.Optimizer(_box(2), method, seed=0, n_init=3, **options)
        for _ in range(5):
            X = opt.ask()
            opt.tell(X, [bowl(x) for x in X])
        clone = pickle.loads(pickle.dumps(opt))
        np.testing.assert_array_equal(clone.ask(), opt.ask())

    def test_unknown_option_is_named(self, method: str) -> None:
        with pytest.raises(TypeError, match="no_such_option"):
            iso.Optimizer(_box(2), method, no_such_option=1)

    def test_known_data_replaces_nearest_design_points(self, method: str, options: dict) -> None:
        space = _box(2)
        fresh = iso.Optimizer(space, method, seed=4, n_init=4, **options)
        design = np.vstack([fresh.ask() for _ in range(4)])
        known = design[:2]
        warm = iso.Optimizer.from_history(space, known, [bowl(x) for x in known],
                                          method=method, seed=4, n_init=4, **options)  # fmt: skip
        np.testing.assert_array_equal(np.vstack([warm.ask(), warm.ask()]), design[2:])
        queued = iso.Optimizer(space, method, seed=4, n_init=4, **options)
        first = np.array([[0.5, -0.5], design[3]])
        queued.enqueue(first)
        served = np.vstack([queued.ask() for _ in range(4)])
        np.testing.assert_allclose(served[:2], first)
        assert not any(np.allclose(design[3], row) for row in served[2:])

    def test_mixed_space_types_and_ranges(self, method: str, options: dict) -> None:
        space = mixed_space()
        run = iso.minimize(mixed_bowl, space, method, budget=7, seed=2, n_init=4, **options)
        for c in run.x_iters:
            _check_config(space, c)
        assert isinstance(run.x, dict) and np.isfinite(run.fun)
        keys = [iso.Space.key(c) for c in run.x_iters]
        assert len(set(keys)) == len(keys), "a configuration was proposed twice"

    def test_mixed_space_batches_are_distinct(self, method: str, options: dict) -> None:
        if not get_method(method).supports_batch:
            pytest.skip(f"{method} proposes one point at a time")
        opt = iso.Optimizer(mixed_space(), method, seed=1, batch_size=3, n_init=3, **options)
        keys: list[str] = []
        for _ in range(3):
            batch = opt.ask()
            keys += [iso.Space.key(c) for c in batch]
            opt.tell(batch, [mixed_bowl(c) for c in batch])
        assert len(set(keys)) == len(keys), "a configuration was proposed twice"

    def test_finite_space_is_covered_before_any_repeat(self, method: str, options: dict) -> None:
        space = iso.Space({"k": iso.Integer(0, 2), "c": iso.Categorical(["a", "b"])})
        res = iso.minimize(lambda c: c["k"] + (c["c"] == "b"), space, method, budget=7,
                           seed=0, n_init=2, **options)  # fmt: skip
        keys = [iso.Space.key(c) for c in res.x_iters]
        assert len(set(keys[:6])) == 6 and len(keys) == 7

    def test_mixed_space_resume_reproduces_trajectory(
        self, method: str, options: dict, tmp_path: Path
    ) -> None:
        batch_size = 2 if get_method(method).supports_batch else 1
        kw: dict[str, Any] = dict(budget=7, seed=3, batch_size=batch_size, n_init=4, **options)
        full = iso.minimize(mixed_bowl, mixed_space(), method, **kw)
        db = str(tmp_path / "mixed.db")
        resumed = _interrupted_then_resumed(mixed_bowl, mixed_space(), method, db, kw)
        assert resumed.x_iters == full.x_iters
        np.testing.assert_array_equal(resumed.func_vals, full.func_vals)
        _check_loads_as_run(db, "s", resumed, full)

    def test_conditional_space_active_params_and_resume(
        self, method: str, options: dict, tmp_path: Path
    ) -> None:
        kw: dict[str, Any] = dict(budget=7, seed=1, n_init=4, **options)
        full = iso.minimize(conditional_bowl, conditional_space(), method, **kw)
        assert full.n_failed == 0, "the objective was given inactive or missing parameters"
        for c in full.x_iters:
            _check_config(conditional_space(), c)
        keys = [iso.Space.key(c) for c in full.x_iters]
        assert len(set(keys)) == len(keys), "a configuration was proposed twice"
        db = str(tmp_path / "conditional.db")
        resumed = _interrupted_then_resumed(conditional_bowl, conditional_space(), method, db, kw)
        assert resumed.x_iters == full.x_iters
        _check_loads_as_run(db, "s", resumed, full)

    def test_finite_conditional_space_is_covered_before_any_repeat(
        self, method: str, options: dict
    ) -> None:
        space = iso.Space(
            {"k": iso.Categorical(["a", "b"]), "n": iso.Integer(0, 2)}, {"n": {"k": "b"}}
        )
        res = iso.minimize(lambda c: c.get("n", 3), space, method, budget=5, seed=0, n_init=2,
                           **options)  # fmt: skip
        keys = [iso.Space.key(c) for c in res.x_iters]
        assert len(set(keys[:4])) == 4 and len(keys) == 5

    @pytest.mark.slow
    @pytest.mark.parametrize(("d", "budget"), [(2, 20), (6, 40)])
    def test_clear_gain_over_random(self, method: str, d: int, budget: int) -> None:
        if not get_method(method).adaptive:
            pytest.skip(f"{method} does not adapt to observed values")
        random_final = _random_mean_final(d, budget)
        final = _mean_final(method, d, budget, range(2))
        assert final < 0.5 * random_final, f"{method}: {final:.4g} vs random {random_final:.4g}"
