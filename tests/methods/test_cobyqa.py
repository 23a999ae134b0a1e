"""COBYQA driven ask/tell: convergence, restarts, threads, and bad options."""

from __future__ import annotations

import gc
import threading

import numpy as np
import pytest

import isoline as iso
from isoline.methods.cobyqa import COBYQA


def quadratic(x: np.ndarray) -> float:
    return float(np.sum((np.asarray(x) - 0.3) ** 2 * np.arange(1, len(x) + 1)))


def cobyqa_threads() -> int:
    return sum(t.name == "isoline-cobyqa" for t in threading.enumerate())


def test_solves_a_quadratic_with_few_evaluations():
    res = iso.minimize(quadratic, iso.Box([0.0] * 4, [1.0] * 4), "cobyqa", budget=40, seed=0)
    assert res.fun < 1e-8  # a quadratic model fits a quadratic exactly
    assert np.allclose(res.x, 0.3, atol=1e-4)


def test_a_converged_run_restarts_from_a_new_point():
    m = COBYQA(2, seed=0, final_radius=1e-3, start_spread=0.0)
    for _ in range(60):
        X = m.ask()
        m.tell(X, [quadratic(X[0])])
    assert m.n_runs >= 2
    first = m.X[0]
    np.testing.assert_allclose(first, 0.5)  # the first run starts at the centre


def test_first_run_starts_from_the_best_known_point():
    m = COBYQA(2, seed=0)
    m.tell(np.array([[0.9, 0.9], [0.25, 0.35]]), np.array([3.0, 0.01]))
    np.testing.assert_allclose(m.ask()[0], [0.25, 0.35])


def test_a_second_ask_before_the_tell_is_random_and_the_run_goes_on():
    m = COBYQA(3, seed=1)
    a, b = m.ask()[0], m.ask()[0]
    assert not np.allclose(a, b)
    m.tell(np.vstack([b, a]), np.array([quadratic(b), quadratic(a)]))
    nxt = m.ask()[0]  # the run got a's value and asks its next point
    assert np.all((nxt >= 0) & (nxt <= 1)) and not np.allclose(nxt, a)


def test_start_spread_draws_the_first_start_around_the_centre_from_the_seed():
    firsts = [COBYQA(3, seed=s, start_spread=0.2).ask()[0] for s in range(5)]
    assert all(np.all(np.abs(f - 0.5) <= 0.2) for f in firsts)
    assert len({f.tobytes() for f in firsts}) == 5  # another seed, another start
    np.testing.assert_array_equal(COBYQA(3, seed=0, start_spread=0.2).ask()[0], firsts[0])
    for s in range(3):  # no spread: the centre whatever the seed
        np.testing.assert_array_equal(COBYQA(3, seed=s, start_spread=0.0).ask()[0], 0.5)


def test_withdrawing_the_awaited_point_ends_the_run():
    m = COBYQA(2, seed=0)
    x = m.ask()
    m.withdraw(x)
    assert m._run is None
    y = m.ask()[0]
    assert m.n_runs == 2 and not np.allclose(y, 0.5)


def test_no_thread_outlives_its_optimizer():
    gc.collect()
    before = cobyqa_threads()
    for seed in range(5):
        m = COBYQA(3, seed=seed)
        for _ in range(3):
            X = m.ask()
            m.tell(X, [quadratic(X[0])])
        assert cobyqa_threads() == before + 1  # this optimizer's helper thread is running
        del m
    gc.collect()
    assert cobyqa_threads() == before


def test_two_runs_in_one_process_do_not_block_each_other():
    a, b = COBYQA(2, seed=0), COBYQA(2, seed=1)
    for _ in range(8):
        for m in (a, b):
            X = m.ask()
            m.tell(X, [quadratic(X[0])])
    assert len(a.y) == len(b.y) == 8


@pytest.mark.parametrize(
    ("options", "text"),
    [
        ({"radius": 0.0}, "radius"),
        ({"radius": 0.7}, "radius"),
        ({"radius": 0.1, "final_radius": 0.2}, "final_radius"),
        ({"x0": [0.5]}, "x0"),
        ({"x0": [0.5, 1.5]}, "x0"),
        ({"start_spread": 0.6}, "start_spread"),
        ({"start_spread": -0.1}, "start_spread"),
    ],
)
def test_bad_options_are_named(options, text):
    with pytest.raises(ValueError, match=text):
        COBYQA(2, **options)


def test_batches_are_refused():
    with pytest.raises(ValueError, match="batch"):
        COBYQA(2, batch_size=2)


def test_without_restarts_a_converged_run_ends_and_random_points_follow():
    m = COBYQA(2, seed=0, final_radius=1e-3, start_spread=0.0, restarts=False)
    for _ in range(60):
        X = m.ask()
        m.tell(X, [quadratic(X[0])])
    assert m.ended and m.n_runs == 1
    assert np.unique(m.X[-5:], axis=0).shape[0] == 5  # uniform points, not a new run
