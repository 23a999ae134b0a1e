"""The :class:`Problem` base class shared by every benchmark problem.

A problem is a callable objective on a box in its own units. isoline **minimizes**:
problems taken from maximization papers (rewards, accuracies) are negated, and each
docstring says so.

Evaluation contract (what :func:`isoline.parallel.evaluate` expects of an objective):
``problem(x)`` takes one ``(d,)`` point and returns a float, or ``(float, info)`` when the
problem has per-evaluation information to store (e.g. an RL episode's reward and number of
environment steps, or the noise-free value of a noisy observation).

Observation noise. With ``noise_std > 0`` an observation is ``f(x) + noise_std * eps``.
``eps`` is a standard normal drawn from a generator keyed by ``(seed, x, k)``. Inside
:func:`isoline.minimize` and the benchmark runner ``k`` is the evaluation's trial number in
the run (problems declare :attr:`Problem.takes_trial_number`), so an observation does not
depend on which process evaluates it, on the order in which a batch finishes, or on whether
the run was resumed. Called directly as ``problem(x)``, ``k`` counts this object's noisy
evaluations. Either way the same seed gives the same observations, and repeated evaluations
of one point get independent noise.
"""

from __future__ import annotations

import hashlib
import importlib
import math
import re
from typing import Any, ClassVar

import numpy as np

from isoline.designs import sobol
from isoline.space import Box
from isoline.validation import check_int

__all__ = ["Problem", "Info", "TypedProblem", "is_noisy", "optional_import"]

Info = dict[str, Any]


def is_noisy(problem: Any) -> bool:
    """Whether repeated evaluations of one point of ``problem`` differ: its ``noisy``
    attribute if it has one (noise of the problem's own, such as COCO's), else whether its
    ``noise_std`` is positive."""
    return bool(getattr(problem, "noisy", False) or getattr(problem, "noise_std", 0.0))


def optional_import(module: str, install: str) -> Any:
    """The module ``module``, or an ImportError that starts with ``install`` (which extra
    of isoline provides it); for problems that need an optional package."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise ImportError(f"{install} ({e})") from None


_RANGE_NOISE = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*%\s*range\s*$")


class Problem:
    """A benchmark objective to minimize on ``space`` (a :class:`~isoline.Box` in its units).

    Subclasses set the class attributes ``name`` and ``description`` and implement
    :meth:`_evaluate` (noise-free value of one point, optionally with an info dict); they
    may override :meth:`evaluate_batch` with a vectorized version and :meth:`_find_optimum`
    when the optimum must be computed.

    Args:
        dim: number of variables ``d``.
        lower: ``(d,)`` lower bounds of the box, in the problem's units.
        upper: ``(d,)`` upper bounds.
        noise_std: standard deviation of additive Gaussian observation noise (``>= 0``), or
            a string ``"<p>%range"``: noise *variance* equal to ``p`` percent of the function
            range, estimated on 4096 Sobol points (the NeuralBO paper uses ``"1%range"``).
        seed: seed of the problem's randomness (its noise, and for random problems such as
            GP samples or goal locations, the instance itself).
        optimum: known minimum value, or ``None``.
        optimum_x: ``(d,)`` known minimizer, or ``None``.
        lower_bound: a known lower bound on the objective when the optimum itself is not
            known (e.g. a distance is ``>= 0``); defaults to ``optimum``.
        names: optional parameter names.

    The arguments are kept as attributes of the same names (the bounds as ``space``,
    a :class:`Box`), next to the class's ``name`` and ``description``.

    Attributes:
        spec: the keyword arguments that rebuild this problem with
            :func:`isoline.problems.get` (set by ``get``).
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    #: noise used when ``get(..., noise_std=None)``
    default_noise_std: ClassVar[float] = 0.0
    #: ``problem(x, number=k)`` is accepted: runs pass the trial number (keys the noise)
    takes_trial_number: ClassVar[bool] = True

    def __init__(
        self,
        dim: int,
        lower: np.ndarray | list[float],
        upper: np.ndarray | list[float],
        *,
        noise_std: float | str = 0.0,
        seed: int = 0,
        optimum: float | None = None,
        optimum_x: np.ndarray | None = None,
        lower_bound: float | None = None,
        names: list[str] | None = None,
    ) -> None:
        self.dim = check_int(dim, "dim", 1)
        self.seed = check_int(seed, "seed", 0)
        self.space = Box(lower, upper, names=names)
        if self.space.dim != self.dim:
            raise ValueError(f"bounds have {self.space.dim} entries but dim={self.dim}")
        self._optimum = None if optimum is None else float(optimum)
        self._optimum_known = optimum is not None
        self._optimum_x = None if optimum_x is None else np.asarray(optimum_x, dtype=float)
        if self._optimum_x is not None:
            if self._optimum_x.shape != (self.dim,):
                raise ValueError(f"optimum_x must have shape ({self.dim},)")
            if not np.all(self.space.contains(self._optimum_x)):
                raise ValueError(
                    f"the known minimizer of {self.name!r} lies outside the bounds "
                    f"[{self.space.lower.min()}, {self.space.upper.max()}]; choose bounds "
                    "that contain it"
                )
        self._lower_bound = None if lower_bound is None else float(lower_bound)
        self._n_noisy = 0
        self.spec: dict[str, Any] = {}
        self._noise_spec = noise_std
        self._noise_std: float | None = None
        if not isinstance(noise_std, str):
            self._noise_std = self._resolve_noise(noise_std)
        elif not _RANGE_NOISE.match(noise_std):
            raise ValueError(
                f"noise_std must be a number >= 0 or a string like '1%range', got {noise_std!r}"
            )

    @property
    def noise_std(self) -> float:
        """Standard deviation of the observation noise (resolved on first use)."""
        if self._noise_std is None:
            self._noise_std = self._resolve_noise(self._noise_spec)
        return self._noise_std

    # ----------------------------------------------------------------------------- values
    def _evaluate(self, x: np.ndarray) -> float | tuple[float, Info]:
        """Noise-free value at one ``(d,)`` point in the problem's units."""
        raise NotImplementedError

    def evaluate(self, x: np.ndarray, number: int | None = None) -> tuple[float, Info]:
        """One observation at ``x`` ``(d,)`` and its info dict (``noise_free`` when noisy).

        ``number``: the evaluation's trial number in its run, which keys the noise draw
        (``None``: this object's count of noisy evaluations).
        """
        x = self._check_x(x)
        out = self._evaluate(x)
        value, info = (out[0], dict(out[1])) if isinstance(out, tuple) else (out, {})
        value = float(value)
        if self.noise_std > 0.0:
            info["noise_free"] = value
            value = value + self.noise_std * self._standard_normal(x, number)
        return value, info

    def __call__(self, x: np.ndarray, number: int | None = None) -> float | tuple[float, Info]:
        """Observe ``x`` ``(d,)``: a float, or ``(float, info)`` when there is info to store."""
        value, info = self.evaluate(x, number)
        return (value, info) if info else value

    def model_hints(self) -> dict[str, Any]:
        """Known model settings a benchmark may hand to methods (empty by default).

        A benchmark config option written ``from-problem`` takes its value from here, e.g.
        the generating GP hyperparameters of a GP-sampled objective.
        """
        return {}

    def noise_free(self, x: np.ndarray) -> float:
        """The noise-free value at ``x`` ``(d,)`` (does not advance the noise sequence)."""
        out = self._evaluate(self._check_x(x))
        return float(out[0] if isinstance(out, tuple) else out)

    def evaluate_batch(self, X: np.ndarray) -> np.ndarray:
        """Noise-free values ``(n,)`` of the rows of ``X`` ``(n, d)``."""
        X = np.asarray(X, dtype=float)
        if X.ndim != 2 or X.shape[1] != self.dim:
            raise ValueError(f"X must have shape (n, {self.dim}), got {X.shape}")
        return np.array([self.noise_free(x) for x in X], dtype=float)

    # ----------------------------------------------------------------------------- optimum
    @property
    def optimum(self) -> float | None:
        """Known (or numerically certified) minimum value, ``None`` if unknown."""
        if not self._optimum_known:
            found = self._find_optimum()
            if found is not None:
                self._optimum, self._optimum_x = float(found[0]), np.asarray(found[1], float)
            self._optimum_known = True
        return self._optimum

    @property
    def optimum_x(self) -> np.ndarray | None:
        """``(d,)`` a minimizer where :attr:`optimum` is attained, ``None`` if unknown."""
        _ = self.optimum
        return self._optimum_x

    @property
    def lower_bound(self) -> float | None:
        """The optimum if known, else a known lower bound (``None`` if neither)."""
        opt = self.optimum
        return opt if opt is not None else self._lower_bound

    def _find_optimum(self) -> tuple[float, np.ndarray] | None:
        """Compute ``(f*, x*)`` for problems whose optimum is found numerically."""
        return None

    def regret(self, y: float | np.ndarray) -> float | np.ndarray:
        """Simple regret ``y - optimum`` (``y - lower_bound`` if the optimum is unknown)."""
        ref = self.lower_bound
        if ref is None:
            raise ValueError(f"problem {self.name!r} has no known optimum or lower bound")
        return np.asarray(y, dtype=float) - ref

    # ----------------------------------------------------------------------------- helpers
    def _check_x(self, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        if x.shape != (self.dim,):
            raise ValueError(f"x must have shape ({self.dim},), got {x.shape}")
        if not np.all(np.isfinite(x)):
            raise ValueError(f"x must be finite, got {x.tolist()}")
        tol = 1e-9 * self.space.width
        if np.any(x < self.space.lower - tol) or np.any(x > self.space.upper + tol):
            raise ValueError(
                f"x lies outside the bounds of {self.name!r}: lower={self.space.lower.tolist()}, "
                f"upper={self.space.upper.tolist()}, x={x.tolist()}"
            )
        return np.clip(x, self.space.lower, self.space.upper)

    def _standard_normal(self, x: np.ndarray, number: int | None) -> float:
        if number is None:
            number = self._n_noisy
            self._n_noisy += 1
        elif number < 0:
            raise ValueError(f"number must be >= 0, got {number}")
        digest = hashlib.blake2b(np.ascontiguousarray(x).tobytes(), digest_size=8).digest()
        key = [self.seed, int.from_bytes(digest, "little"), int(number), 0x6E6F697365]
        return float(np.random.default_rng(key).standard_normal())

    def _resolve_noise(self, noise_std: float | str) -> float:
        if isinstance(noise_std, str):
            m = _RANGE_NOISE.match(noise_std)
            assert m is not None  # checked in __init__
            X = self.space.from_unit(sobol(4096, self.dim, seed=self.seed))
            vals = self.evaluate_batch(X)
            lo = min(vals.min(), self.lower_bound if self.lower_bound is not None else np.inf)
            return math.sqrt(float(m.group(1)) / 100.0 * float(vals.max() - lo))
        if isinstance(noise_std, bool) or not isinstance(noise_std, (int, float)):
            raise TypeError(
                f"noise_std must be a number or a '<p>%range' string, got {noise_std!r}"
            )
        if not (math.isfinite(noise_std) and noise_std >= 0):
            raise ValueError(f"noise_std must be finite and >= 0, got {noise_std}")
        return float(noise_std)

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(name={self.name!r}, dim={self.dim}, "
            f"noise_std={self.noise_std:g}, seed={self.seed})"
        )


class TypedProblem:
    """A noise-free benchmark objective on configurations (the dicts of a typed
    :class:`~isoline.params.Space`) whose optimum is not known: what the problem interface
    asks beyond :attr:`space` and :meth:`evaluate`, written once.

    Subclasses call :meth:`_set_typed` in ``__init__`` and implement :meth:`evaluate`;
    ``problem(x)`` is ``evaluate(x)``, a ``(value, info)`` pair.
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    default_noise_std: ClassVar[float] = 0.0
    takes_trial_number: ClassVar[bool] = True
    dim: int

    def _set_typed(self, noise_std: object, seed: object) -> None:
        """Refuse observation noise and keep ``seed``; no optimum is known."""
        if noise_std not in (0, 0.0):
            raise ValueError(f"{self.name} has no observation noise option (noise_std must be 0)")
        self.seed = check_int(seed, "seed", 0)
        self.noise_std = 0.0
        self.optimum: float | None = None
        self.optimum_x: np.ndarray | None = None
        self.lower_bound: float | None = None
        self.spec: dict[str, Any] = {}

    def _check_dim(self, dim: object, what: str) -> None:
        """``dim`` must be 0 or :attr:`dim`, the number of encoded columns."""
        if dim not in (0, self.dim):
            raise ValueError(
                f"{what} has {self.dim} encoded columns; give dim=0 or {self.dim}, got {dim}"
            )

    def evaluate(self, x: Any) -> tuple[float, Info]:
        """The value at the configuration ``x`` and its info dict."""
        raise NotImplementedError

    def noise_free(self, x: Any) -> float:
        return self.evaluate(x)[0]

    def __call__(self, x: Any, number: int | None = None) -> Any:
        return self.evaluate(x)

    def model_hints(self) -> dict[str, Any]:
        return {}
