"""COCO's bbob-noisy and bbob-mixint suites through cocoex; skipped without coco-experiment."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from isoline import problems
from isoline.auto import choose
from isoline.params import Integer, Real
from isoline.problems.base import is_noisy
from isoline.problems.bbob import NOISY_COUNTERPARTS

cocoex = pytest.importorskip("cocoex")


def _coco(suite: str, function: int, dim: int, instance: int) -> object:
    s = cocoex.Suite(suite, f"instances: {instance}", f"dimensions: {dim}")
    return s, s.get_problem_by_function_dimension_instance(function, dim, instance)


@pytest.mark.parametrize("function", sorted(NOISY_COUNTERPARTS))
def test_noisy_observations_are_coco_s_and_noise_free_is_the_counterpart(function: int) -> None:
    p = problems.get("bbob-noisy", dim=5, function=function, seed=6)
    _, ref = _coco("bbob-noisy", function, 5, 7)
    clean = cocoex.BareProblem("bbob", NOISY_COUNTERPARTS[function], 5, 7)
    X = np.random.default_rng(function).uniform(-4, 4, (3, 5))
    observed = [ref(x) for x in X]  # COCO's own noisy values, draws 0, 1, 2 of its stream
    for k in (2, 0, 1):  # in any order, as a resumed or parallel run asks
        y, info = p.evaluate(X[k], number=k)
        assert y == observed[k]
        assert info["noise_free"] == pytest.approx(clean(X[k]), rel=1e-12)
    assert p.optimum == clean.best_value() and p.instance == 7
    # the noise-free function is the noisy one's median: checks the counterpart table
    x = X[0]
    median = np.median([ref(x) for _ in range(301)])
    assert np.log((median - p.optimum) / (clean(x) - p.optimum)) == pytest.approx(0, abs=0.3)


def test_noisy_draws_are_keyed_by_trial_number() -> None:
    x0, x1 = np.full(5, 0.5), np.full(5, -1.0)
    whole = problems.get("bbob-noisy", dim=5, function=122, seed=0)
    ys = [whole.evaluate(x)[0] for x in (x0, x1, x0)]  # trial numbers 0, 1, 2 by count
    other = problems.get("bbob-noisy", dim=5, function=101, seed=0)
    other(x1)  # another noisy problem in the process restarts COCO's stream
    resumed = pickle.loads(pickle.dumps(whole))  # as a resumed run in a new process
    assert resumed.evaluate(x0, number=2)[0] == ys[2]
    assert resumed.evaluate(x1, number=1)[0] == ys[1]
    assert ys[0] != ys[2]  # one point, two draws of the noise
    assert is_noisy(whole) and not is_noisy(problems.get("bbob", dim=5))
    assert choose(whole.space, 100, noisy=is_noisy(whole)).rule == "low-dim-local"


def test_noisy_refuses_other_functions_and_added_noise() -> None:
    with pytest.raises(ValueError, match="function must be one of"):
        problems.get("bbob-noisy", dim=5, function=116)
    with pytest.raises(ValueError, match="noise_std must be 0"):
        problems.get("bbob-noisy", dim=5, function=101, noise_std=0.1)


def test_mixint_is_a_typed_space_on_coco_s_values() -> None:
    p = problems.get("bbob-mixint", dim=10, function=21, seed=3)
    _, ref = _coco("bbob-mixint", 21, 10, 4)
    params = list(p.space.params.values())
    assert [type(q) for q in params] == [Integer] * 8 + [Real] * 2
    assert [q.high for q in params[:8]] == [1, 1, 3, 3, 7, 7, 15, 15]
    assert p.space.discrete and p.coco_id == "bbob-mixint_f021_i04_d10"
    x = {f"x{i}": v for i, v in enumerate([1, 0, 2, 3, 5, 0, 9, 15, -1.5, 4.0])}
    assert p(x) == ref(np.array(list(x.values()), dtype=float))
    assert pickle.loads(pickle.dumps(p))(x) == p(x)
    assert choose(p.space, 64).rule == "discrete"
    with pytest.raises(ValueError, match="keys"):
        p({"x0": 1})
    with pytest.raises(ValueError, match="function must be one of 1..24"):
        problems.get("bbob-mixint", dim=5, function=25)
