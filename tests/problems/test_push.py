"""Robot pushing (Box2D); skipped when the box2d package is missing."""

from __future__ import annotations

import math
import pickle
import sys

import numpy as np
import pytest

from isoline import problems

pytest.importorskip("Box2D")


def test_push4_goal_is_seeded_and_objective_is_the_distance() -> None:
    a, b, c = (problems.get("push4", seed=s) for s in (0, 0, 1))
    assert np.array_equal(a.goal, b.goal) and not np.array_equal(a.goal, c.goal)
    assert np.all(np.abs(a.goal) <= 5)
    x = np.array([2.0, -1.0, 10.0, 0.3])
    y, info = a(x)
    assert y == b(x)[0] == a.noise_free(x)  # deterministic simulation
    assert y == pytest.approx(np.linalg.norm(a.goal - np.array(info["object"])))
    assert a.lower_bound == 0.0 and a.optimum is None


def test_push4_pushing_away_from_the_goal_brings_the_object_close() -> None:
    p = problems.get("push4", goal=(3.0, 2.0))
    g = np.array([3.0, 2.0])
    start = -g / np.linalg.norm(g) * 3.0  # behind the object, opposite the goal
    angle = math.atan2(g[1], g[0]) % (2 * math.pi)
    ys = [p(np.array([*start, d, angle]))[0] for d in np.linspace(1, 30, 59)]
    assert ys[0] > 3.0  # a 10-step push barely moves the object
    assert min(ys) < 0.5
    # no push at all: the object stays at the origin
    still = p(np.array([5.0, 5.0, 1.0, 0.0]))
    assert still[0] == pytest.approx(np.linalg.norm(g), abs=1e-6)


def test_push14_reward_and_distance() -> None:
    p = problems.get("push14")
    assert p.dim == 14 and p.space.names[:2] == ["rx1", "ry1"]
    assert p.initial_distance == pytest.approx(math.hypot(4, 1.5) + math.hypot(4, 5.5))
    # hands far away with zero velocity leave the objects where they are: reward 0
    idle = np.array([5, 5, 0, 0, 2, 0, -5, -5, 0, 0, 2, 0, 0, 0], dtype=float)
    y, info = p(idle)
    assert y == pytest.approx(p.initial_distance, abs=1e-6)
    assert info["reward"] == pytest.approx(0.0, abs=1e-6)
    x = p.space.from_unit(np.random.default_rng(0).random(14))
    y, info = p(x)
    assert y == p(x)[0] and info["reward"] == pytest.approx(p.initial_distance - y)
    assert not np.array_equal(problems.get("push14", random_goals=True, seed=3).goals, p.goals)


def test_pickles() -> None:
    p = problems.get("push4", seed=2)
    q = pickle.loads(pickle.dumps(p))
    x = np.array([1.0, 1.0, 5.0, 1.0])
    assert q(x) == p(x)


def test_bad_input_and_missing_box2d(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match="goal"):
        problems.get("push4", goal=(1.0, np.nan))
    with pytest.raises(ValueError, match="allowed: 4"):
        problems.get("push4", dim=5)
    monkeypatch.setitem(sys.modules, "Box2D", None)
    with pytest.raises(ImportError, match=r'pip install "isoline\[push\]"'):
        problems.get("push4")
