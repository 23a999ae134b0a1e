"""The 24 noiseless BBOB functions through COCO's ``cocoex`` (NeuralBO §7.1, Fig. 2).

``get("bbob", dim=5, function=7, instance=None, seed=0)`` builds function ``f7`` of the
``bbob`` suite on ``[-5, 5]^d`` (``cocoex.BareProblem``: no logging, no files). COCO
instances differ by shifts/rotations of the same function; ``instance=None`` uses
instance ``seed + 1``, so repetitions with different seeds run on different instances, as
COCO prescribes.

Targets, as COCO/cocopp define them for the bbob suite: the 51 precisions
``10^2, 10^1.8, ..., 10^-8`` above the instance's optimal value ``f_opt`` (known to cocoex,
``BareProblem.best_value()``); a run *solves* a target once its best value is at or below
it. :meth:`BBOB.fraction_solved` gives, for a run, the fraction of the problem's targets
solved after each evaluation; averaging it over functions gives the "fraction of
(function, target) pairs" curve of the paper's Fig. 2. The budget there is ``20 d``.

Two more of COCO's suites, each under its own problem name since their spaces differ:

- ``bbob-noisy`` (:class:`BBOBNoisy`; Hansen, Finck, Ros and Auger, "Real-Parameter
  Black-Box Optimization Benchmarking 2009: Noisy Functions Definitions", INRIA RR-6869):
  the functions with Gaussian noise whose noise-free function is a ``bbob`` function of
  the same instance, so that a run's noise-free values are known exactly;
- ``bbob-mixint`` (:class:`BBOBMixint`; Tušar, Brockhoff and Hansen, "Mixed-Integer
  Benchmark Problems for Single- and Bi-Objective Optimization", GECCO 2019): the 24
  functions with the first four fifths of the variables integer, as a typed space.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from isoline.problems.base import Info, Problem, TypedProblem
from isoline.problems.coco import CocoProblem, cocoex
from isoline.validation import check_int

__all__ = [
    "BBOB",
    "BBOBMixint",
    "BBOBNoisy",
    "FUNCTION_NAMES",
    "NOISY_COUNTERPARTS",
    "TARGET_PRECISIONS",
    "fraction_of_pairs_solved",
]

#: COCO's 51 target precisions for bbob: 10^2 down to 10^-8 in steps of 10^0.2
TARGET_PRECISIONS = 10.0 ** np.linspace(2.0, -8.0, 51)

FUNCTION_NAMES = (
    "sphere", "ellipsoid separable", "rastrigin separable", "skew rastrigin-bueche",
    "linear slope", "attractive sector", "step-ellipsoid", "rosenbrock original",
    "rosenbrock rotated", "ellipsoid", "discus", "bent cigar", "sharp ridge",
    "sum of different powers", "rastrigin", "weierstrass", "schaffer F7 cond 10",
    "schaffer F7 cond 1000", "griewank-rosenbrock F8F2", "schwefel x*sin(x)",
    "gallagher 101 peaks", "gallagher 21 peaks", "katsuura", "lunacek bi-rastrigin",
)  # fmt: skip


#: bbob-noisy functions with Gaussian noise -> the bbob function that is their noise-free
#: part on the same instance (checked against cocoex: the median of repeated noisy
#: evaluations matches it); the others (uniform and Cauchy noise, and the noisy ellipsoid
#: and Griewank-Rosenbrock, whose scalings differ from bbob's) are left out
NOISY_COUNTERPARTS = {101: 1, 104: 8, 107: 1, 110: 8, 113: 7, 119: 14, 122: 17, 128: 21}


class BBOB(CocoProblem, Problem):
    """BBOB function ``function`` (1..24), COCO instance ``instance``, on ``[-5, 5]^d``.

    Args:
        dim: 2, 3, 5, 10, 20 or 40 (COCO's bbob dimensions).
        noise_std: observation noise (default 0; the suite is noiseless).
        seed: the instance when ``instance`` is None (``seed + 1``), and the noise seed.
        function: 1..24.
        instance: COCO instance number (>= 1) or None.

    Attributes:
        function, instance, targets ``(51,)`` (``f_opt + TARGET_PRECISIONS``, descending).
    """

    name = "bbob"
    suite = "bbob"
    description = "COCO bbob noiseless functions f1..f24 (cocoex)"

    def __init__(
        self,
        dim: int,
        *,
        noise_std: float | str = 0.0,
        seed: int = 0,
        function: int = 1,
        instance: int | None = None,
    ) -> None:
        if isinstance(dim, bool) or not isinstance(dim, int) or dim < 2:
            raise ValueError(
                f"dim must be an integer >= 2 (COCO uses 2, 3, 5, 10, 20, 40), got {dim!r}"
            )
        self._set_coco(dim, function, range(1, 25), "1..24", instance, seed)
        fn = self._coco()
        super().__init__(
            dim,
            [-5.0] * dim,
            [5.0] * dim,
            noise_std=noise_std,
            seed=seed,
            optimum=float(fn.best_value()),
            optimum_x=np.asarray(fn.best_parameter(), dtype=float),
        )
        self.targets = float(fn.best_value()) + TARGET_PRECISIONS

    def _open(self) -> tuple[Any, Any]:
        problem = cocoex().BareProblem(self.suite, self.function, self.dim, self.instance)
        return None, problem

    def _evaluate(self, x: np.ndarray) -> float:
        return float(self._coco()(np.ascontiguousarray(x, dtype=float)))

    def fraction_solved(self, y: np.ndarray) -> np.ndarray:
        """``(n,)`` fraction of the 51 targets reached by the best of ``y[:i+1]`` (``y (n,)``
        noise-free values in evaluation order)."""
        best = np.minimum.accumulate(np.asarray(y, dtype=float))
        return (best[:, None] <= self.targets[None, :]).mean(axis=1)


def fraction_of_pairs_solved(runs: list[tuple[BBOB, np.ndarray]]) -> np.ndarray:
    """Fraction of (function, target) pairs solved after each evaluation, over ``runs``.

    ``runs`` holds ``(problem, y (n,))`` pairs with equal ``n``; the result ``(n,)`` is the
    mean of :meth:`BBOB.fraction_solved` (each run weighs its 51 targets equally).
    """
    if not runs:
        raise ValueError("runs must hold at least one (problem, values) pair")
    curves = [p.fraction_solved(y) for p, y in runs]
    if len({c.size for c in curves}) != 1:
        sizes = sorted({c.size for c in curves})
        raise ValueError(f"every run must have the same number of evaluations, got {sizes}")
    return np.mean(curves, axis=0)


class BBOBNoisy(CocoProblem, Problem):
    """A ``bbob-noisy`` function with Gaussian noise, COCO instance ``instance``, on
    ``[-5, 5]^d``: an observation is COCO's noisy value; its noise-free value (``info``'s
    ``noise_free``, :meth:`noise_free`) is the ``bbob`` function of
    :data:`NOISY_COUNTERPARTS` on the same instance.

    COCO draws the noise from one stream per process, restarted whenever a noisy problem
    is made. Observation ``k`` of a run (its trial number; this object's count when not
    given) is the ``k``-th draw of a restarted stream: each evaluation makes COCO's problem
    afresh and draws ``k`` times first, so a resumed run, or one evaluated beside other
    noisy problems in its process, sees the observations it would have seen.

    Args:
        dim: 2, 3, 5, 10, 20 or 40.
        noise_std: must be 0 (the suite's own noise is the noise).
        seed: the instance when ``instance`` is None (``seed + 1``).
        function: a key of :data:`NOISY_COUNTERPARTS`.
        instance: COCO instance number (>= 1) or None.
    """

    name = "bbob-noisy"
    suite = "bbob-noisy"
    description = "COCO bbob-noisy functions with Gaussian noise (cocoex)"
    #: repeated evaluations of one point differ (the chooser's ``noisy``)
    noisy = True

    def __init__(
        self,
        dim: int,
        *,
        noise_std: float | str = 0.0,
        seed: int = 0,
        function: int = 101,
        instance: int | None = None,
    ) -> None:
        if noise_std not in (0, 0.0):
            raise ValueError("bbob-noisy carries COCO's noise; noise_std must be 0")
        self._set_coco(dim, function, NOISY_COUNTERPARTS, str(sorted(NOISY_COUNTERPARTS)),
                       instance, seed)  # fmt: skip
        self._clean = BBOB(
            dim, seed=seed, function=NOISY_COUNTERPARTS[function], instance=self.instance
        )
        super().__init__(
            dim,
            [-5.0] * dim,
            [5.0] * dim,
            seed=seed,
            optimum=self._clean.optimum,
            optimum_x=self._clean.optimum_x,
        )

    def _evaluate(self, x: np.ndarray) -> float:
        return self._clean.noise_free(x)

    def evaluate(self, x: np.ndarray, number: int | None = None) -> tuple[float, Info]:
        x = self._check_x(x)
        if number is None:
            number, self._n_noisy = self._n_noisy, self._n_noisy + 1
        k = check_int(number, "number", 0)
        suite, fn = self._open()  # afresh: COCO restarts its noise stream
        centre = np.zeros(self.dim)
        for _ in range(k):  # COCO's stream, restarted when fn was made, to its draw k
            fn(centre)
        value = float(fn(np.ascontiguousarray(x, dtype=float)))
        del fn, suite
        return value, {"noise_free": self._evaluate(x)}


class BBOBMixint(CocoProblem, TypedProblem):
    """A ``bbob-mixint`` function, COCO instance ``instance``: in each fifth of the first
    four fifths of the variables integers in ``[0, 1]``, ``[0, 3]``, ``[0, 7]``,
    ``[0, 15]``, the rest real in ``[-5, 5]`` (COCO's bounds), as a typed
    :class:`~isoline.params.Space` (``x0``, ``x1``, ...). Its optimum is not known.

    Args:
        dim: 5, 10, 20, 40, 80 or 160.
        noise_std: must be 0 (the suite is noiseless).
        seed: the instance when ``instance`` is None (``seed + 1``).
        function: 1..24.
        instance: COCO instance number (>= 1) or None.
    """

    name = "bbob-mixint"
    suite = "bbob-mixint"
    description = "COCO bbob-mixint functions f1..f24, integer and real variables (cocoex)"

    def __init__(
        self,
        dim: int,
        *,
        noise_std: float | str = 0.0,
        seed: int = 0,
        function: int = 1,
        instance: int | None = None,
    ) -> None:
        from isoline.params import Integer, Real, Space

        self._set_typed(noise_std, seed)
        self._set_coco(check_int(dim, "dim", 5), function, range(1, 25), "1..24", instance, seed)
        fn = self._coco()
        lower, upper = np.asarray(fn.lower_bounds), np.asarray(fn.upper_bounds)
        n_int = int(fn.number_of_integer_variables)
        self.names = [f"x{i}" for i in range(self.dim)]
        self.space = Space(
            {
                n: Integer(int(lo), int(hi)) if i < n_int else Real(float(lo), float(hi))
                for i, (n, lo, hi) in enumerate(zip(self.names, lower, upper))
            }
        )

    def noise_free(self, x: Any) -> float:
        """The value at the configuration ``x`` (a mapping from ``x0``, ``x1``, ...)."""
        if not isinstance(x, dict) or set(x) != set(self.names):
            raise ValueError(f"x must be a mapping with the keys {self.names}, got {x!r}")
        return float(self._coco()(np.array([float(x[n]) for n in self.names])))

    def evaluate(self, x: Any) -> tuple[float, Info]:
        return self.noise_free(x), {}

    def __call__(self, x: Any, number: int | None = None) -> float:
        return self.noise_free(x)
