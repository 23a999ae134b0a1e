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
"""

from __future__ import annotations

from typing import Any

import numpy as np

from isoline.problems.base import Problem

__all__ = ["BBOB", "FUNCTION_NAMES", "TARGET_PRECISIONS", "fraction_of_pairs_solved"]

_INSTALL = 'the BBOB problems need COCO: pip install "isoline[bbob]" (coco-experiment)'

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


def _cocoex() -> Any:
    try:
        import cocoex
    except ImportError as e:
        raise ImportError(f"{_INSTALL} ({e})") from None
    return cocoex


class BBOB(Problem):
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
        if isinstance(function, bool) or not isinstance(function, int) or not 1 <= function <= 24:
            raise ValueError(f"function must be an integer in 1..24, got {function!r}")
        if instance is None:
            instance = int(seed) + 1 if isinstance(seed, int) and not isinstance(seed, bool) else 1
        if isinstance(instance, bool) or not isinstance(instance, int) or instance < 1:
            raise ValueError(f"instance must be an integer >= 1, got {instance!r}")
        self.function, self.instance = function, instance
        self._fn: Any = None
        fn = self._coco(dim)
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

    def _coco(self, dim: int | None = None) -> Any:
        if self._fn is None:
            self._fn = _cocoex().BareProblem("bbob", self.function, dim or self.dim, self.instance)
        return self._fn

    @property
    def coco_id(self) -> str:
        """COCO's identifier, e.g. ``bbob_f007_i01_d03``."""
        return str(self._coco().id)

    def _evaluate(self, x: np.ndarray) -> float:
        return float(self._coco()(np.ascontiguousarray(x, dtype=float)))

    def fraction_solved(self, y: np.ndarray) -> np.ndarray:
        """``(n,)`` fraction of the 51 targets reached by the best of ``y[:i+1]`` (``y (n,)``
        noise-free values in evaluation order)."""
        best = np.minimum.accumulate(np.asarray(y, dtype=float))
        return (best[:, None] <= self.targets[None, :]).mean(axis=1)

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_fn"] = None  # the cocoex object is rebuilt in the receiving process
        return state


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
