"""Linear-policy RL objectives (gymnasium); skipped when gymnasium/mujoco are missing."""

from __future__ import annotations

import pickle
import sys

import numpy as np
import pytest

from isoline import problems

gym = pytest.importorskip("gymnasium")
pytest.importorskip("mujoco")


def test_cartpole_negative_reward_and_info() -> None:
    p = problems.get("cartpole")
    assert p.dim == 4 and np.all(p.space.lower == -1) and np.all(p.space.upper == 1)
    y, info = p(np.array([0.0, 0.5, 1.0, 1.0]))
    assert y == -info["reward"] and info["reward"] == info["steps"]
    # a balancing policy reaches the 500-step cap, which is the lower bound
    assert y == -500.0 == p.lower_bound
    assert p(np.zeros(4))[0] > -50  # a constant action drops the pole quickly


def test_episodes_are_deterministic_per_seed() -> None:
    x = np.random.default_rng(0).uniform(-1, 1, 16)
    a = problems.get("swimmer", seed=0)
    b = problems.get("swimmer", seed=0)
    c = problems.get("swimmer", seed=1)
    ya, yb, yc = a(x)[0], b(x)[0], c(x)[0]
    assert ya == yb == a(x)[0]
    assert ya != yc
    assert a.noise_free(x) == ya


def test_policy_layout_and_bias_dims() -> None:
    p = problems.get("hopper", dim=36)
    assert p.has_bias and p.space.names[-1] == "b2"
    theta = np.arange(36.0) / 100
    W, b = p.policy(theta)
    assert W.shape == (11, 3) and W[1, 0] == theta[3] and np.all(b == theta[33:])
    assert problems.get("hopper").dim == 33 and not problems.get("hopper").has_bias
    with pytest.raises(ValueError, match="allowed: 33, 36"):
        problems.get("hopper", dim=34)


def test_hopper_reports_steps_and_terminates() -> None:
    p = problems.get("hopper")
    y, info = p(np.random.default_rng(1).uniform(-1, 1, 33))
    assert 1 <= info["steps"] <= 1000 and y == -info["reward"]


def test_random_starts_vary_but_replay_per_seed() -> None:
    x = np.array([0.0, 0.0, 1.0, 0.0])
    a = problems.get("cartpole", random_starts=True, seed=5)
    b = problems.get("cartpole", random_starts=True, seed=5)
    ra = [a(x)[1]["reward"] for _ in range(6)]
    rb = [b(x)[1]["reward"] for _ in range(6)]
    assert ra == rb and len(set(ra)) > 1


def test_n_episodes_averages() -> None:
    x = np.array([0.0, 0.0, 1.0, 0.0])
    p2 = problems.get("cartpole", n_episodes=2, seed=3)
    r3 = problems.get("cartpole", seed=3)(x)[1]["reward"]
    r4 = problems.get("cartpole", seed=4)(x)[1]["reward"]
    assert r3 != r4 and p2(x)[1]["reward"] == pytest.approx((r3 + r4) / 2)


def test_pickles_without_the_environment() -> None:
    p = problems.get("cartpole")
    x = np.array([0.0, 0.5, 1.0, 1.0])
    p(x)
    q = pickle.loads(pickle.dumps(p))
    assert q._env is None and q(x) == p(x)


def test_bad_options() -> None:
    with pytest.raises(ValueError, match="bound"):
        problems.get("cartpole", bound=0)
    with pytest.raises(ValueError, match="n_episodes"):
        problems.get("cartpole", n_episodes=0)


def test_missing_gymnasium_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "gymnasium", None)
    with pytest.raises(ImportError, match=r'pip install "isoline\[rl\]"'):
        problems.get("cartpole")
