"""Classic synthetic test functions in any dimension (vectorized numpy).

Formulas and domains follow Table 4 of the BKOP paper (Lyu, Yuan & Tsang, "Efficient
Batch Black-box Optimization with Deterministic Regret Bounds", §10): Rosenbrock, Nesterov,
Different-Powers, Dixon-Price and Ackley on ``[-2, 2]^d``, Levy on ``[-10, 10]^d``.
Michalewicz (``m = 10``, ``[0, pi]^d``) is the NeuralBO paper's third function (§7.1, via
the SFU library). All are minimization problems already. ``bounds=(lo, hi)`` replaces
the domain by ``[lo, hi]^d`` (e.g. ``(-32.768, 32.768)`` for the SFU Ackley domain used
by NeuralBO); the known minimizer must stay inside.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar, cast

import numpy as np
from scipy.optimize import minimize_scalar

from isoline.problems.base import Problem

__all__ = [
    "Ackley",
    "DifferentPowers",
    "DixonPrice",
    "Levy",
    "Michalewicz",
    "Nesterov",
    "Rosenbrock",
    "SyntheticProblem",
]


class SyntheticProblem(Problem):
    """A closed-form function ``f(X (n, d)) -> (n,)`` on ``[lo, hi]^d``.

    Args:
        dim: number of variables (at least ``min_dim``).
        noise_std: observation noise (see :class:`~isoline.problems.base.Problem`).
        seed: seed of the noise.
        bounds: ``(lo, hi)`` replacing the default domain ``[lo, hi]^d``.
    """

    default_bounds: ClassVar[tuple[float, float]] = (-2.0, 2.0)
    min_dim: ClassVar[int] = 1
    #: every coordinate of the known minimizer, when they are all the same
    minimizer_coordinate: ClassVar[float | None] = None

    def __init__(
        self,
        dim: int,
        *,
        noise_std: float | str = 0.0,
        seed: int = 0,
        bounds: tuple[float, float] | None = None,
    ) -> None:
        if isinstance(dim, (int, np.integer)) and not isinstance(dim, bool) and dim < self.min_dim:
            raise ValueError(f"dim of {self.name!r} must be >= {self.min_dim}, got {dim}")
        lo, hi = self.default_bounds if bounds is None else _check_bounds(bounds)
        opt_x = self.minimizer(int(dim))
        super().__init__(
            dim,
            [lo] * dim,
            [hi] * dim,
            noise_std=noise_std,
            seed=seed,
            optimum=None if opt_x is None else 0.0,
            optimum_x=opt_x,
        )

    @staticmethod
    def f(X: np.ndarray) -> np.ndarray:
        """Values ``(n,)`` of the rows of ``X`` ``(n, d)``."""
        raise NotImplementedError

    @classmethod
    def minimizer(cls, dim: int) -> np.ndarray | None:
        """The known global minimizer ``(d,)``, where the function is 0 (``None`` if unknown)."""
        c = cls.minimizer_coordinate
        return None if c is None else np.full(dim, c)

    def _evaluate(self, x: np.ndarray) -> float:
        return float(self.f(x[None, :])[0])

    def evaluate_batch(self, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X, dtype=float)
        if X.ndim != 2 or X.shape[1] != self.dim:
            raise ValueError(f"X must have shape (n, {self.dim}), got {X.shape}")
        return self.f(X)


class Ackley(SyntheticProblem):
    """Ackley: ``-20 exp(-0.2 sqrt(mean x^2)) - exp(mean cos(2 pi x)) + 20 + e``; min 0 at 0."""

    name = "ackley"
    description = "Ackley, [-2,2]^d (BKOP Table 4); min 0 at x = 0"
    minimizer_coordinate = 0.0

    @staticmethod
    def f(X: np.ndarray) -> np.ndarray:
        r = np.sqrt(np.mean(X**2, axis=1))
        c = np.mean(np.cos(2 * np.pi * X), axis=1)
        return -20.0 * np.exp(-0.2 * r) - np.exp(c) + 20.0 + math.e


class Levy(SyntheticProblem):
    """Levy with ``w = 1 + (x - 1) / 4``; min 0 at ``x = 1``."""

    name = "levy"
    description = "Levy, [-10,10]^d (BKOP Table 4); min 0 at x = 1"
    minimizer_coordinate = 1.0
    default_bounds = (-10.0, 10.0)

    @staticmethod
    def f(X: np.ndarray) -> np.ndarray:
        W = 1.0 + (X - 1.0) / 4.0
        head = np.sin(np.pi * W[:, 0]) ** 2
        Wh = W[:, :-1]
        mid = np.sum((Wh - 1.0) ** 2 * (1.0 + 10.0 * np.sin(np.pi * Wh + 1.0) ** 2), axis=1)
        tail = (W[:, -1] - 1.0) ** 2 * (1.0 + np.sin(2.0 * np.pi * W[:, -1]) ** 2)
        return head + mid + tail


class Rosenbrock(SyntheticProblem):
    """Rosenbrock ``sum 100 (x_{i+1} - x_i^2)^2 + (1 - x_i)^2``; min 0 at ``x = 1``."""

    name = "rosenbrock"
    description = "Rosenbrock, [-2,2]^d (BKOP Table 4); min 0 at x = 1"
    minimizer_coordinate = 1.0
    min_dim = 2

    @staticmethod
    def f(X: np.ndarray) -> np.ndarray:
        return np.sum(100.0 * (X[:, 1:] - X[:, :-1] ** 2) ** 2 + (1.0 - X[:, :-1]) ** 2, axis=1)


class Nesterov(SyntheticProblem):
    """Nesterov ``|x_1 - 1| / 4 + sum |x_{i+1} - 2|x_i| + 1|``; min 0 at ``x = 1``."""

    name = "nesterov"
    description = "Nesterov, [-2,2]^d (BKOP Table 4); min 0 at x = 1"
    minimizer_coordinate = 1.0

    @staticmethod
    def f(X: np.ndarray) -> np.ndarray:
        return 0.25 * np.abs(X[:, 0] - 1.0) + np.sum(
            np.abs(X[:, 1:] - 2.0 * np.abs(X[:, :-1]) + 1.0), axis=1
        )


class DifferentPowers(SyntheticProblem):
    """Different-Powers ``sum |x_i|^(2 + 10 (i-1)/(d-1))``; min 0 at ``x = 0``."""

    name = "different-powers"
    description = "Different-Powers, [-2,2]^d (BKOP Table 4); min 0 at x = 0"
    minimizer_coordinate = 0.0
    min_dim = 2

    @staticmethod
    def f(X: np.ndarray) -> np.ndarray:
        d = X.shape[1]
        powers = 2.0 + 10.0 * np.arange(d) / (d - 1)
        return np.sum(np.abs(X) ** powers, axis=1)


class DixonPrice(SyntheticProblem):
    """Dixon-Price ``(x_1 - 1)^2 + sum_{i>=2} i (2 x_i^2 - x_{i-1})^2``; min 0 at
    ``x_i = 2^(-(2^i - 2) / 2^i)``."""

    name = "dixon-price"
    description = "Dixon-Price, [-2,2]^d (BKOP Table 4); min 0 at x_i = 2^-((2^i-2)/2^i)"

    @staticmethod
    def f(X: np.ndarray) -> np.ndarray:
        i = np.arange(2, X.shape[1] + 1)
        return (X[:, 0] - 1.0) ** 2 + np.sum(i * (2.0 * X[:, 1:] ** 2 - X[:, :-1]) ** 2, axis=1)

    @classmethod
    def minimizer(cls, dim: int) -> np.ndarray:
        i = np.arange(1, dim + 1, dtype=float)
        return 2.0 ** (-(2.0**i - 2.0) / 2.0**i)


class Michalewicz(SyntheticProblem):
    """Michalewicz ``-sum sin(x_i) sin(i x_i^2 / pi)^(2m)``, ``m = 10``, on ``[0, pi]^d``.

    The function is a sum of one-variable terms, so its minimum over a box is the sum of
    the per-coordinate minima: the optimum is computed (grid + bounded Brent refinement)
    for every ``d`` and every box. It reproduces the published values -1.8013 (d=2),
    -4.687658 (d=5) and -9.66015 (d=10).
    """

    name = "michalewicz"
    description = "Michalewicz (m=10), [0,pi]^d (NeuralBO §7.1); min computed per coordinate"
    default_bounds = (0.0, math.pi)
    m: ClassVar[int] = 10

    def _find_optimum(self) -> tuple[float, np.ndarray]:
        lo, hi = float(self.space.lower[0]), float(self.space.upper[0])
        x_star = np.array([_michalewicz_term_argmin(i, lo, hi) for i in range(1, self.dim + 1)])
        return float(self.f(x_star[None])[0]), x_star

    @staticmethod
    def f(X: np.ndarray) -> np.ndarray:
        i = np.arange(1, X.shape[1] + 1)
        return -np.sum(np.sin(X) * np.sin(i * X**2 / np.pi) ** (2 * Michalewicz.m), axis=1)


def _michalewicz_term_argmin(i: int, lo: float, hi: float) -> float:
    """Minimizer in ``[lo, hi]`` of ``-sin(t) sin(i t^2 / pi)^20`` (one Michalewicz term)."""

    def term(t: np.ndarray | float) -> np.ndarray | float:
        return -np.sin(t) * np.sin(i * np.square(t) / np.pi) ** (2 * Michalewicz.m)

    grid = np.linspace(lo, hi, 200_001)
    k = int(np.argmin(term(grid)))
    a, b = grid[max(k - 1, 0)], grid[min(k + 1, grid.size - 1)]
    res = minimize_scalar(term, bounds=(a, b), method="bounded", options={"xatol": 1e-12})
    return float(res.x) if res.fun <= term(grid[k]) else float(grid[k])


def _check_bounds(bounds: object) -> tuple[float, float]:
    try:
        lo, hi = (float(b) for b in cast(Any, bounds))
    except (TypeError, ValueError):
        raise TypeError(f"bounds must be a pair (lo, hi) of numbers, got {bounds!r}") from None
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise ValueError(f"bounds must be finite with lo < hi, got {bounds!r}")
    return lo, hi
