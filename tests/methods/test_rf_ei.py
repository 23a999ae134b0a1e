"""rf-ei: SMAC's log-scaled costs, log-EI, local search, no repeats, tie rule, options."""

from __future__ import annotations

import numpy as np
import pytest

from isoline.methods.registry import make_method
from isoline.methods.rf_ei import RandomForestEI
from isoline.models.forest import (
    RandomForestSurrogate,
    expected_improvement,
    log_expected_improvement,
    log_scale,
)


def bowl(X: np.ndarray) -> np.ndarray:
    return np.sum((np.atleast_2d(X) - 0.3) ** 2, axis=1)


def test_log_scale_maps_worst_to_zero_and_keeps_order() -> None:
    y = np.array([3.0, -1.0, 7.0, 0.5, 2.0])
    z = log_scale(y)
    assert z[2] == pytest.approx(0.0)
    np.testing.assert_array_equal(np.argsort(z), np.argsort(y))
    assert np.all(np.isfinite(z)) and np.all(z <= 0)
    # SMAC3: c = min - (p5 - min) - tiny, z = log((y - c) / (max - c))
    c = -1.0 - (np.percentile(y, 5) + 1.0)
    np.testing.assert_allclose(z, np.log((y - c) / (7.0 - c)), rtol=1e-6)
    np.testing.assert_array_equal(log_scale(np.full(4, 2.5)), np.zeros(4))


def test_log_ei_matches_monte_carlo() -> None:
    rng = np.random.default_rng(0)
    mean, var, eta = np.array([-1.0, 0.3, -2.5]), np.array([0.2, 1.5, 0.05]), -1.2
    f = mean + np.sqrt(var) * rng.standard_normal((400_000, 3))
    mc = np.maximum(np.exp(eta) - np.exp(f), 0).mean(0)
    np.testing.assert_allclose(log_expected_improvement(mean, var, eta), mc, rtol=0.02)
    f = mean + np.sqrt(var) * rng.standard_normal((400_000, 3))
    np.testing.assert_allclose(
        expected_improvement(mean, var, eta), np.maximum(eta - f, 0).mean(0), rtol=0.02
    )


def _told(n: int = 12, d: int = 3, seed: int = 0, **options: object) -> RandomForestEI:
    m = make_method("rf-ei", d, seed=seed, n_init=n, n_random=500, **options)
    X = m.ask(n)
    m.tell(X, bowl(X))
    return m


def test_never_repeats_an_evaluated_point_and_batches_are_distinct() -> None:
    m = _told()
    for _ in range(8):
        x = m.ask()
        assert not any(np.array_equal(x[0], p) for p in m.X)
        m.tell(x, bowl(x))
    X = m.ask(4)
    assert len({x.tobytes() for x in X}) == 4


def test_local_search_climbs_to_a_strictly_better_point() -> None:
    m = _told(n=20)
    X, y = m.data()
    forest = RandomForestSurrogate(seed=0).fit(X, log_scale(y))
    eta = float(np.min(forest.predict(X)[0]))

    def acq(P: np.ndarray) -> np.ndarray:
        return log_expected_improvement(*forest.predict(P), eta)

    starts = m.rng.random((5, 3))
    ends, vals = m._local_search(acq, starts)
    np.testing.assert_array_equal(vals, acq(ends))
    assert np.all(vals >= acq(starts)) and np.any(vals > acq(starts))
    # one-exchange neighbours change exactly one coordinate and stay in the cube
    nb = m._neighbours(starts, 9)
    assert nb.shape == (5, 9, 3) and np.all((nb >= 0) & (nb <= 1))
    assert np.all(np.sum(nb != starts[:, None, :], axis=2) <= 1)


def test_ties_go_to_the_first_group_then_at_random() -> None:
    """Selection among local-search ends (first group) and random candidates (second)."""
    m = make_method("rf-ei", 2, seed=1)
    local = (np.array([[0.1, 0.1], [0.2, 0.2], [0.3, 0.3]]), np.array([1.0, 2.0, 2.0]))
    rand = (np.array([[0.9, 0.9], [0.8, 0.8]]), np.array([2.0, 0.5]))
    picks = {m._select([local, rand]).tobytes() for _ in range(40)}
    assert picks == {np.array([0.2, 0.2]).tobytes(), np.array([0.3, 0.3]).tobytes()}
    better = (rand[0], np.array([2.5, 0.5]))
    np.testing.assert_array_equal(m._select([local, better]), [0.9, 0.9])
    # a constant forest ties everywhere: the proposal ends a local search, and the searches
    # started at evaluated points move one coordinate away from them
    m = make_method("rf-ei", 4, seed=1, n_init=6, n_random=2000, n_local=6)
    X = m.ask(6)
    m.tell(X, np.ones(6))
    near = 0
    for _ in range(6):
        x = m.ask()[0]
        near += min(np.sum(x != p) for p in m.X) == 1
        m.tell(x[None], [1.0])
    assert near >= 2


def test_gain_over_random_on_a_bowl() -> None:
    """Mean best value over 4 seeds after 30 evaluations, d = 3, below random search's."""
    finals, rand = [], []
    for s in range(4):
        m = _told(n=6, seed=s)
        for _ in range(24):
            x = m.ask()
            m.tell(x, bowl(x))
        finals.append(m.y.min())
        rand.append(bowl(np.random.default_rng(s).random((30, 3))).min())
    assert np.mean(finals) < 0.5 * np.mean(rand), (finals, rand)


def test_same_seed_same_proposals_and_options_change_behaviour() -> None:
    a, b = _told(seed=3), _told(seed=3)
    np.testing.assert_array_equal(a.ask(2), b.ask(2))
    default = _told(seed=3).ask(2)
    for option in ({"random_fraction": 1.0}, {"log_cost": False}, {"plateau_steps": 2}):
        assert not np.array_equal(_told(seed=3, **option).ask(2), default), option


@pytest.mark.parametrize(
    "option,value,error",
    [
        ("plateau_steps", -1, ValueError),
        ("plateau_steps", 1.5, TypeError),
        ("n_local", -1, ValueError),
        ("log_cost", "yes", TypeError),
        ("random_fraction", -0.1, ValueError),
    ],
)
def test_bad_options_are_named(option: str, value: object, error: type) -> None:
    with pytest.raises(error, match=option):
        make_method("rf-ei", 2, **{option: value})
