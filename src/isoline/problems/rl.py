"""Linear-policy reinforcement-learning objectives on gymnasium (GIBO/MPD/MinUCB §8.2).

The parameters ``theta`` of a deterministic linear policy are the variables; one
evaluation runs one episode (headless) and returns the **negative** episode reward
(isoline minimizes; the papers maximize the reward), with info
``{"reward": R, "steps": n}``.

Policies (state ``s`` of size ``n_s``, ``n_a`` actions; ``theta`` laid out as the
``(n_s, n_a)`` weight matrix ``W`` in row-major order, then the optional biases ``b``):

* ``cartpole`` (CartPole-v1, 500 steps): ``action = 1[s @ w (+ b) > 0]``; dim 4 (5 with bias).
* ``swimmer`` (Swimmer-v5, 1000 steps): ``action = clip(s @ W (+ b), -1, 1)``; dim 8x2 = 16
  (18 with biases).
* ``hopper`` (Hopper-v5, up to 1000 steps): same form; dim 11x3 = 33 (36 with biases).

Choice for Hopper: the MinUCB paper (§8.2) reports 33 parameters and runs Hopper
*without* the online state normalization of the GIBO/MPD code, so the default is the plain
33-parameter ``s @ W``. The GIBO configuration (``add_bias: True``,
``state_normalization: True``) has 36 parameters; ``dim=36`` gives the biases (no state
normalization, which would make the objective depend on the evaluation history).

Other choices, stated: the old references used gym 0.9 with Swimmer-v1/Hopper-v1; these
are gymnasium's v5 environments. Rewards are not shifted or rescaled (the GIBO code rescales
rewards for its GP, e.g. Hopper ``(r - 1) / 1000``; isoline's methods standardize ``y``).
Parameters lie in ``[-bound, bound]^d`` (``bound = 1``): GIBO's code starts at 0 without
bounds, and MinUCB draws its starting points by Sobol in a bounded domain.
Every episode starts from ``reset(seed=seed)``, so the objective is a deterministic function
of ``theta``; ``random_starts=True`` draws a fresh reset seed per evaluation instead (the
references' stochastic objective), and ``n_episodes`` averages several episodes.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from isoline.problems.base import Info, Problem, optional_import

__all__ = ["CartPole", "Hopper", "LinearPolicyProblem", "Swimmer"]

_INSTALL = 'the RL problems need gymnasium with MuJoCo: pip install "isoline[rl]"'


def _import_gymnasium() -> Any:
    return optional_import("gymnasium", _INSTALL)


class LinearPolicyProblem(Problem):
    """Negative episode reward of a linear policy ``theta`` on a gymnasium environment.

    Args:
        dim: ``n_s * n_a`` (no bias) or ``n_s * n_a + n_a`` (with biases).
        noise_std: extra observation noise (default 0; episodes are deterministic).
        seed: reset seed of every episode (and seed of the noise / random starts).
        bound: parameters lie in ``[-bound, bound]^d``.
        random_starts: draw a fresh reset seed per evaluation (stochastic objective).
        n_episodes: episodes averaged per evaluation (reset seeds ``seed, seed+1, ...``).
    """

    env_id: ClassVar[str] = ""
    n_states: ClassVar[int] = 0
    n_actions: ClassVar[int] = 0
    #: a known lower bound of the objective (minus the maximum episode reward) if any
    min_value: ClassVar[float | None] = None

    def __init__(
        self,
        dim: int,
        *,
        noise_std: float | str = 0.0,
        seed: int = 0,
        bound: float = 1.0,
        random_starts: bool = False,
        n_episodes: int = 1,
    ) -> None:
        _import_gymnasium()
        n_w = self.n_states * self.n_actions
        if dim not in (n_w, n_w + self.n_actions):
            raise ValueError(
                f"dim of {self.name!r} must be {n_w} (weights) or {n_w + self.n_actions} "
                f"(weights and biases), got {dim}"
            )
        is_number = isinstance(bound, (int, float)) and not isinstance(bound, bool)
        if not (is_number and 0 < bound < np.inf):
            raise ValueError(f"bound must be a positive number, got {bound!r}")
        if isinstance(n_episodes, bool) or not isinstance(n_episodes, int) or n_episodes < 1:
            raise ValueError(f"n_episodes must be an integer >= 1, got {n_episodes!r}")
        if not isinstance(random_starts, bool):
            raise TypeError(f"random_starts must be True or False, got {random_starts!r}")
        names = [f"w{i}_{j}" for i in range(self.n_states) for j in range(self.n_actions)]
        names += [f"b{j}" for j in range(self.n_actions)][: dim - n_w]
        super().__init__(
            dim,
            [-float(bound)] * dim,
            [float(bound)] * dim,
            noise_std=noise_std,
            seed=seed,
            lower_bound=self.min_value,
            names=names,
        )
        self.has_bias = dim > n_w
        self.random_starts = random_starts
        self.n_episodes = n_episodes
        self._env: Any = None
        self._n_calls = 0

    # ------------------------------------------------------------------------- episodes
    def policy(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(W (n_s, n_a), b (n_a,))`` from the flat parameter vector ``theta (d,)``."""
        n_w = self.n_states * self.n_actions
        W = theta[:n_w].reshape(self.n_states, self.n_actions)
        b = theta[n_w:] if self.has_bias else np.zeros(self.n_actions)
        return W, b

    def _action(self, s: np.ndarray, W: np.ndarray, b: np.ndarray) -> Any:
        return np.clip(s @ W + b, -1.0, 1.0)

    def run_episode(self, theta: np.ndarray, reset_seed: int) -> tuple[float, int]:
        """One episode of the policy ``theta``: ``(total reward, number of steps)``."""
        if self._env is None:
            gym = _import_gymnasium()
            self._env = gym.make(self.env_id, disable_env_checker=True)
        W, b = self.policy(np.asarray(theta, dtype=float))
        s, _ = self._env.reset(seed=int(reset_seed))
        total, steps = 0.0, 0
        while True:
            s, r, terminated, truncated, _ = self._env.step(self._action(s, W, b))
            total += float(r)
            steps += 1
            if terminated or truncated:
                return total, steps

    def _episode_seeds(self, fresh: bool, number: int | None = None) -> list[int]:
        if fresh:
            if number is None:
                number = self._n_calls
                self._n_calls += 1
            key = [self.seed, int(number), 0x72657365]
            seeds = np.random.default_rng(key).integers(0, 2**31 - 1, self.n_episodes)
            return [int(s) for s in seeds]
        return [self.seed + k for k in range(self.n_episodes)]

    def _evaluate(self, x: np.ndarray) -> tuple[float, Info]:
        return self._run(x, fresh=False)

    def _run(self, x: np.ndarray, fresh: bool, number: int | None = None) -> tuple[float, Info]:
        results = [self.run_episode(x, s) for s in self._episode_seeds(fresh, number)]
        reward = float(np.mean([r for r, _ in results]))
        return -reward, {"reward": reward, "steps": int(sum(n for _, n in results))}

    def evaluate(self, x: np.ndarray, number: int | None = None) -> tuple[float, Info]:
        """One evaluation ``(-reward, {"reward", "steps"})``; fresh starts if ``random_starts``
        (their seeds keyed by the trial ``number`` as the noise is, see :class:`Problem`)."""
        if not self.random_starts:
            return super().evaluate(x, number)
        x = self._check_x(x)
        value, info = self._run(x, fresh=True, number=number)
        if self.noise_std > 0.0:
            info["noise_free"] = value
            value += self.noise_std * self._standard_normal(x, number)
        return value, info

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_env"] = None  # rebuilt lazily in the receiving process
        return state

    def close(self) -> None:
        """Close the environment (it is reopened on the next evaluation)."""
        if self._env is not None:
            self._env.close()
            self._env = None


class CartPole(LinearPolicyProblem):
    """CartPole-v1 with ``action = 1[s @ w (+ b) > 0]``; reward at most 500 (min value -500)."""

    name = "cartpole"
    description = "CartPole-v1 linear policy, -episode reward (4 params)"
    env_id = "CartPole-v1"
    n_states, n_actions = 4, 1
    min_value = -500.0

    def _action(self, s: np.ndarray, W: np.ndarray, b: np.ndarray) -> int:
        return int((s @ W + b)[0] > 0.0)


class Swimmer(LinearPolicyProblem):
    """Swimmer-v5 with ``action = clip(s @ W (+ b), -1, 1)``; 8x2 = 16 parameters."""

    name = "swimmer"
    description = "Swimmer-v5 linear policy, -episode reward (16 params)"
    env_id = "Swimmer-v5"
    n_states, n_actions = 8, 2


class Hopper(LinearPolicyProblem):
    """Hopper-v5 with ``action = clip(s @ W (+ b), -1, 1)``; 11x3 = 33 parameters."""

    name = "hopper"
    description = "Hopper-v5 linear policy, -episode reward (33 params)"
    env_id = "Hopper-v5"
    n_states, n_actions = 11, 3
