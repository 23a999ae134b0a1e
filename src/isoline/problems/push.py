"""Robot-pushing tasks simulated with Box2D (Wang & Jegelka 2017; Wang et al. 2018).

A planar table without gravity; pushed objects and rectangular robot hands are dynamic
Box2D bodies held back by friction joints to a static base. A hand is driven towards a
desired velocity by a proportional force (``mass * (v_des - v) * 30``) during its push
duration (``10 * duration`` steps of 1/100 s), then the world runs 100 more steps.

* ``push4`` (BKOP §10, Fig. 5b): variables ``(rx, ry, duration, angle)`` in
  ``[-5, 5] x [-5, 5] x [1, 30] x [0, 2 pi]``. The hand starts at ``(rx, ry)`` with
  orientation ``angle`` and pushes towards the origin at speed 10; a circular object
  (radius 1) starts at the origin. The objective is the distance from the object's final
  position to the goal (already a minimization: 0 is the lower bound). The goal is drawn
  uniformly from ``[-5, 5]^2`` per seed (BKOP: "thirty goal locations randomly generated").
* ``push14`` (NeuralBO §7.2.3, from Ensemble BO): two hands, each with start position,
  desired velocity ``(vx, vy)`` in ``[-10, 10]^2``, duration in ``[2, 30]``, angle in
  ``[0, 2 pi]`` and desired angular velocity in ``[-5, 5]``; a square (half-size 0.5)
  at ``(0, 2)`` and a circle (radius 1) at ``(0, -2)`` must reach the goals ``(4, 3.5)``
  and ``(-4, 3.5)``. The paper maximizes the reward ``r = d0 - d1 - d2`` (``d0`` the initial
  total distance); isoline minimizes ``d1 + d2 = d0 - r`` (lower bound 0) and stores
  ``reward`` in the info dict.

Both are deterministic: the reference code adds Gaussian noise to the commanded velocity
(std 0.1 / 0.01); here noise, if wanted, is the usual observation noise (``noise_std``).
The Box2D code is written for isoline from the task description; Box2D is the ``box2d``
package (``pip install "isoline[push]"``), which runs headless.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from isoline.problems.base import Info, Problem, optional_import

__all__ = ["Push4", "Push14"]

_INSTALL = 'the robot-pushing problems need Box2D: pip install "isoline[push]"'
_STEP, _VEL_ITERS, _POS_ITERS = 1.0 / 100.0, 10, 10
_FORCE_GAIN, _TORQUE_GAIN = 30.0, 30.0
_SETTLE_STEPS = 100


def _box2d() -> Any:
    return optional_import("Box2D", _INSTALL)


class _Table:
    """A gravity-free Box2D world with a static base that friction joints attach to."""

    def __init__(self) -> None:
        b2 = _box2d()
        self.b2 = b2
        self.world = b2.b2World(gravity=(0.0, 0.0), doSleep=True)
        self.base = self.world.CreateStaticBody(position=(0.0, 0.0))

    def add_object(
        self, shape: str, size: float | tuple[float, float], position: tuple[float, float]
    ) -> Any:
        """A pushed object (density 0.05, friction 0.01) with table friction (force 5, torque 2)."""
        body = self.world.CreateDynamicBody(position=position)
        if shape == "circle":
            geom = self.b2.b2CircleShape(radius=size)
        else:
            geom = self.b2.b2PolygonShape(box=size)
        body.CreateFixture(shape=geom, density=0.05, friction=0.01)
        self.world.CreateFrictionJoint(bodyA=self.base, bodyB=body, maxForce=5.0, maxTorque=2.0)
        return body

    def add_hand(
        self, position: tuple[float, float], angle: float, half_size: tuple[float, float]
    ) -> Any:
        """A rectangular robot hand (density 0.1, friction 0.1; table friction 2 / 2)."""
        hand = self.world.CreateDynamicBody(position=position, angle=angle)
        hand.CreateFixture(shape=self.b2.b2PolygonShape(box=half_size), density=0.1, friction=0.1)
        self.world.CreateFrictionJoint(bodyA=self.base, bodyB=hand, maxForce=2.0, maxTorque=2.0)
        return hand

    def drive(
        self, hand: Any, velocity: tuple[float, float], angular_velocity: float = 0.0
    ) -> None:
        """Proportional control of a hand towards a desired linear and angular velocity."""
        v = hand.linearVelocity
        gain = hand.mass * _FORCE_GAIN
        force = (gain * (velocity[0] - v[0]), gain * (velocity[1] - v[1]))
        hand.ApplyForce(force, hand.position, True)
        hand.ApplyTorque(hand.mass * (angular_velocity - hand.angularVelocity) * _TORQUE_GAIN, True)

    def step(self) -> None:
        self.world.Step(_STEP, _VEL_ITERS, _POS_ITERS)


class Push4(Problem):
    """Distance to the goal of an object pushed by one robot hand (4 variables, minimize).

    Args:
        dim: 4.
        noise_std: observation noise (default 0; the simulation is deterministic).
        seed: draws the goal uniformly from ``[-5, 5]^2`` (and seeds the noise).
        goal: a fixed ``(gx, gy)`` instead of the seeded draw.

    Attributes:
        goal: ``(2,)`` the goal location.
    """

    name = "push4"
    description = "robot pushing, 4-D (Wang & Jegelka; BKOP §10); distance to goal"

    def __init__(
        self,
        dim: int = 4,
        *,
        noise_std: float | str = 0.0,
        seed: int = 0,
        goal: tuple[float, float] | None = None,
    ) -> None:
        _box2d()
        if dim != 4:
            raise ValueError(f"dim of 'push4' must be 4, got {dim}")
        super().__init__(
            4,
            [-5.0, -5.0, 1.0, 0.0],
            [5.0, 5.0, 30.0, 2.0 * math.pi],
            noise_std=noise_std,
            seed=seed,
            lower_bound=0.0,
            names=["rx", "ry", "duration", "angle"],
        )
        if goal is None:
            self.goal = np.random.default_rng([seed, 0x676F616C]).uniform(-5.0, 5.0, 2)
        else:
            self.goal = np.asarray(goal, dtype=float)
            if self.goal.shape != (2,) or not np.all(np.isfinite(self.goal)):
                raise ValueError(f"goal must be a finite pair (gx, gy), got {goal!r}")

    def simulate(self, x: np.ndarray) -> np.ndarray:
        """Final ``(2,)`` position of the object for the push ``x = (rx, ry, duration, angle)``."""
        rx, ry, duration, angle = (float(v) for v in x)
        table = _Table()
        obj = table.add_object("circle", 1.0, (0.0, 0.0))
        hand = table.add_hand((rx, ry), angle, (0.3, 1.0))
        norm = math.hypot(rx, ry)
        # push towards the object's start (the origin) at speed 10
        vel = (-rx / norm * 10.0, -ry / norm * 10.0) if norm > 0 else (0.0, 0.0)
        steps = int(10.0 * duration)
        for t in range(steps + _SETTLE_STEPS):
            if t < steps:
                table.drive(hand, vel)
            table.step()
        return np.array([obj.position[0], obj.position[1]])

    def _evaluate(self, x: np.ndarray) -> tuple[float, Info]:
        final = self.simulate(x)
        return float(np.linalg.norm(self.goal - final)), {"object": final.tolist()}


class Push14(Problem):
    """Two robot hands pushing two objects to two goals (14 variables, minimize ``d1 + d2``).

    Variables, per hand ``k = 1, 2``: ``rx_k, ry_k, vx_k, vy_k, duration_k, angle_k``, then
    the desired angular velocities ``w_1, w_2`` (the Ensemble BO order).

    Args:
        dim: 14.
        noise_std: observation noise (default 0; the simulation is deterministic).
        seed: seeds the noise; with ``random_goals`` also the two goals.
        random_goals: draw both goals uniformly from ``[-5, 5]^2`` per seed instead of the
            reference goals ``(4, 3.5)`` and ``(-4, 3.5)``.
    """

    name = "push14"
    description = "robot pushing, 14-D two hands (NeuralBO §7.2.3); total distance to goals"
    starts = ((0.0, 2.0), (0.0, -2.0))

    def __init__(
        self,
        dim: int = 14,
        *,
        noise_std: float | str = 0.0,
        seed: int = 0,
        random_goals: bool = False,
    ) -> None:
        _box2d()
        if dim != 14:
            raise ValueError(f"dim of 'push14' must be 14, got {dim}")
        hand_lo = [-5.0, -5.0, -10.0, -10.0, 2.0, 0.0]
        hand_hi = [5.0, 5.0, 10.0, 10.0, 30.0, 2 * math.pi]
        names = [f"{v}{k}" for k in (1, 2) for v in ("rx", "ry", "vx", "vy", "duration", "angle")]
        super().__init__(
            14,
            hand_lo * 2 + [-5.0, -5.0],
            hand_hi * 2 + [5.0, 5.0],
            noise_std=noise_std,
            seed=seed,
            lower_bound=0.0,
            names=names + ["w1", "w2"],
        )
        if random_goals:
            self.goals = np.random.default_rng([seed, 0x676F616C]).uniform(-5.0, 5.0, (2, 2))
        else:
            self.goals = np.array([[4.0, 3.5], [-4.0, 3.5]])
        #: total initial distance ``d0`` of the objects to their goals
        starts = np.array(self.starts)
        self.initial_distance = float(np.linalg.norm(self.goals - starts, axis=1).sum())

    def simulate(self, x: np.ndarray) -> np.ndarray:
        """Final ``(2, 2)`` positions of the square and the circle for the 14 parameters ``x``."""
        p = [float(v) for v in x]
        table = _Table()
        objs = [
            table.add_object("box", (0.5, 0.5), self.starts[0]),
            table.add_object("circle", 1.0, self.starts[1]),
        ]
        hands, plans = [], []
        for k in range(2):
            rx, ry, vx, vy, duration, angle = p[6 * k : 6 * k + 6]
            hands.append(table.add_hand((rx, ry), angle, (1.0, 0.3)))
            plans.append(((vx, vy), p[12 + k], int(10.0 * duration)))
        for t in range(max(p[2] for p in plans) + _SETTLE_STEPS):
            for hand, (vel, omega, steps) in zip(hands, plans):
                if t < steps:
                    table.drive(hand, vel, omega)
            table.step()
        return np.array([[o.position[0], o.position[1]] for o in objs])

    def _evaluate(self, x: np.ndarray) -> tuple[float, Info]:
        dist = float(np.linalg.norm(self.goals - self.simulate(x), axis=1).sum())
        return dist, {"reward": self.initial_distance - dist}
