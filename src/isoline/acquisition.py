"""Acquisition optimization shared by every GP method: :func:`maximize`.

A thin, validated layer over BoTorch's ``optimize_acqf`` (multi-start L-BFGS-B from
Boltzmann-sampled Sobol raw points, Balandat et al. 2020, BoTorch §4/Appendix) that

* takes ``d`` and optional ``(2, d)`` bounds inside the unit cube (default: the cube),
* returns numpy ``(q, d)`` candidates and the acquisition value of the whole batch,
* is deterministic given torch's global generator, so call it inside
  :meth:`isoline.methods.base.Method.torch_rng`,
* falls back to the best of ``raw_samples`` scrambled Sobol points when the gradient
  optimizer fails (numerical error or non-finite result),
* never returns a batch that repeats a point: a row that coincides with an earlier one
  (several restarts can converge to one box corner, and a smoothed qEI gives a repeat a
  little value) is replaced by the raw Sobol point that maximizes the batch's value,
* does not depend on the objective's units: L-BFGS-B's stopping tolerances are absolute,
  so an acquisition in the units of an objective of scale 1e-9 (UCB, a posterior mean)
  would stop at its starting points. When the model's ``y`` has a standard deviation
  outside ``[1e-3, 1e3]`` and the acquisition's spread over a fixed Sobol probe does too,
  the acquisition is divided by the power of two nearest that spread (exact in floating
  point, so the maximizer is unchanged).

BoTorch maximizes: pass acquisition functions of the negated objective.
"""

from __future__ import annotations

import contextlib
import copy
import math
import warnings
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, cast

import numpy as np
import torch
from botorch.acquisition import (
    AcquisitionFunction,
    LogExpectedImprovement,
    UpperConfidenceBound,
)
from botorch.acquisition.objective import ScalarizedPosteriorTransform
from botorch.exceptions.warnings import (
    BadInitialCandidatesWarning,
    BotorchWarning,
    OptimizationWarning,
)
from botorch.generation.gen import gen_candidates_scipy
from botorch.models.model import Model
from botorch.optim import optimize_acqf
from botorch.optim.initializers import gen_batch_initial_conditions
from botorch.posteriors.gpytorch import GPyTorchPosterior
from gpytorch.utils.warnings import NumericalWarning
from torch.quasirandom import SobolEngine

from isoline.encoding import DiscreteLayout
from isoline.input_constraints import UnitConstraints
from isoline.mixed_search import maximize_mixed
from isoline.validation import check_int

__all__ = [
    "RelativeFloorLogEI",
    "RelativeFloorUCB",
    "gaussian_posterior",
    "handled_fallbacks",
    "maximize",
    "negated",
    "outside_range_unit",
    "unit_bounds",
    "y_unit",
]

DTYPE = torch.float64
#: raw points evaluated per call in the fallback search
_CHUNK = 1024
#: unit-cube distance below which two points of a batch count as the same point
_SAME = 1e-6
#: acquisition spreads the optimizer's absolute tolerances are made for
_SPREAD_RANGE = (1e-3, 1e3)
#: batches in the probe that measures an acquisition's spread
_PROBE = 64
#: BoTorch's hit-and-run chain for starts under linear constraints (its default is slow)
_CHAIN: dict[str, bool | float | int] = {"n_burnin": 100, "n_thinning": 2}


def unit_bounds(d: int) -> torch.Tensor:
    """``(2, d)`` bounds of the unit cube (float64)."""
    return torch.stack([torch.zeros(d, dtype=DTYPE), torch.ones(d, dtype=DTYPE)])


@contextlib.contextmanager
def handled_fallbacks() -> Iterator[None]:
    """Silence the warnings of fallbacks that GPyTorch and BoTorch handle themselves: the
    jitter added to a covariance that is not positive definite; the plain posterior
    sampling used when a cached Cholesky update fails (as when a noisy acquisition
    conditions on nearly repeated points); and the constrained noisy EI's note that a
    posterior sample has no feasible evaluated point, where it improves on a lower bound
    of the objective instead (the behaviour isoline documents for that case)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NumericalWarning)
        warnings.filterwarnings("ignore", message="Low-rank cholesky updates failed",
                                category=BotorchWarning)  # fmt: skip
        warnings.filterwarnings("ignore", message="When all training points are infeasible",
                                category=BotorchWarning)  # fmt: skip
        yield


@contextlib.contextmanager
def _quiet_search() -> Iterator[None]:
    """:func:`handled_fallbacks`, and BoTorch's warnings about restarts that stop early or
    start badly (the search checks its answer's value for finiteness). BoTorch forces the
    first past any filter, so warnings are recorded and the others warned again after."""
    caught: list[warnings.WarningMessage] = []
    try:
        with handled_fallbacks(), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("ignore", BadInitialCandidatesWarning)
            warnings.filterwarnings("ignore", "Optimization failed", RuntimeWarning)
            yield
    finally:
        for w in caught:
            if not issubclass(w.category, OptimizationWarning):
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)


@_quiet_search()
def maximize(
    acqf: AcquisitionFunction,
    d: int,
    q: int = 1,
    *,
    bounds: np.ndarray | None = None,
    num_restarts: int = 10,
    raw_samples: int = 512,
    sequential: bool = False,
    fixed_features: Mapping[int, float] | None = None,
    initial_conditions: np.ndarray | None = None,
    options: Mapping[str, object] | None = None,
    discrete: Sequence[int] | DiscreteLayout | None = None,
    avoid: np.ndarray | None = None,
    extra_starts: np.ndarray | None = None,
    constraints: UnitConstraints | None = None,
) -> tuple[np.ndarray, float]:
    """Maximize ``acqf`` over ``q`` points in a box of ``[0, 1]^d``.

    Args:
        acqf: a BoTorch acquisition function (maximized).
        d: input dimension.
        q: number of points; joint optimization unless ``sequential`` (greedy, one
            point at a time with the earlier ones pending).
        bounds: ``(2, d)`` lower/upper rows inside ``[0, 1]``; ``None`` = unit cube.
        num_restarts: L-BFGS-B starts.
        raw_samples: Sobol points scored to choose the starts (and for the fallback).
        fixed_features: ``{column: value}`` held fixed.
        initial_conditions: ``(num_restarts, q, d)`` starting points instead of raw
            sampling (e.g. the best of a candidate set).
        options: passed to ``optimize_acqf`` (e.g. ``{"maxiter": 200, "batch_limit": 5}``).
        discrete: where ``acqf`` is piecewise constant (a typed space's integer and
            categorical columns under a rounding model). A list of columns: each restart
            keeps the values of its starting point there and L-BFGS-B moves only the
            other columns; the starts are chosen among the raw samples as usual, and with
            no other column the best start is the answer. A
            :class:`~isoline.encoding.DiscreteLayout`: the restarts alternate discrete
            local steps with L-BFGS-B (:func:`isoline.mixed_search.maximize_mixed`; a
            batch is then chosen greedily, and ``initial_conditions`` are not used).
        avoid: ``(n, d)`` points already evaluated. A point of the answer within ``1e-6``
            of one of them (or of an earlier point of the batch) is replaced by the raw
            Sobol point that maximizes ``acqf`` of the batch in its place, as Ax
            deduplicates its generated arms: on a deterministic objective a repeat buys
            nothing, and an acquisition whose model has flattened (heavy-tailed values
            under standardization) can otherwise return the incumbent over and over.
        extra_starts: ``(k, d)`` points (e.g. the best observed one) each started from as a
            restart of its own, besides the ``num_restarts`` chosen from the raw samples,
            as Optuna's GPSampler starts one local search at its best trial. Only for
            ``q = 1`` and the L-BFGS-B searches (not with ``initial_conditions`` or a
            :class:`~isoline.encoding.DiscreteLayout`).
        constraints: linear constraints as BoTorch's ``inequality_constraints`` (no
            DiscreteLayout); a fallback's raw Sobol point may violate them (``ask`` repairs).

    Returns:
        ``X (q, d)`` numpy array and the acquisition value of the batch ``acqf(X)``.
    """
    d = check_int(d, "d", 1)
    q = check_int(q, "q", 1)
    num_restarts = check_int(num_restarts, "num_restarts", 1)
    raw_samples = check_int(raw_samples, "raw_samples", 1)
    B = _check_bounds(bounds, d)
    ff = _check_fixed(fixed_features, B)
    ics = None
    if initial_conditions is not None:
        ics = torch.as_tensor(np.asarray(initial_conditions, dtype=float), dtype=DTYPE)
        if ics.ndim != 3 or ics.shape[1:] != (q, d):
            raise ValueError(
                f"initial_conditions must have shape (restarts, {q}, {d}), got {tuple(ics.shape)}"
            )
        ics = torch.max(torch.min(ics, B[1]), B[0])
    opts: dict[str, Any] = dict(options or {})
    scaled = _in_range(acqf, B, q, ff)
    ineq = None if constraints is None else constraints.botorch()
    if extra_starts is not None:
        if q != 1 or ics is not None or isinstance(discrete, DiscreteLayout):
            raise ValueError(
                "extra_starts needs q = 1, no initial_conditions and no DiscreteLayout"
            )
        ics = _with_starts(scaled, B, num_restarts, raw_samples, ff, extra_starts, ineq)
    layout = discrete if isinstance(discrete, DiscreteLayout) else None
    if ineq is not None and layout is not None:
        raise ValueError("constraints cannot be combined with a DiscreteLayout search")
    held = (
        []
        if layout is not None
        else sorted(set(cast(Sequence[int], discrete or ())) - set(ff or {}))
    )
    if ineq is not None and ics is None and not (layout or held or sequential):
        ics = gen_batch_initial_conditions(scaled, B, q, num_restarts, raw_samples,
                                           fixed_features=ff, inequality_constraints=ineq,
                                           options=_CHAIN)  # fmt: skip
    try:
        if layout is not None:
            X = maximize_mixed(
                scaled, B, q, layout, num_restarts=num_restarts,
                raw_samples=raw_samples, fixed_features=ff,
            )  # fmt: skip
        elif held:
            X = _search_held(scaled, B, q, held, num_restarts, raw_samples, ff, ics, opts, ineq)
        else:
            X, _ = optimize_acqf(
                scaled,
                bounds=B,
                q=q,
                num_restarts=num_restarts if ics is None else ics.shape[0],
                raw_samples=None if ics is not None else raw_samples,
                options=opts,
                fixed_features=ff,
                sequential=sequential and q > 1,
                batch_initial_conditions=ics,
                inequality_constraints=ineq,
            )
        X = _distinct(acqf, X.detach().reshape(q, d), B, raw_samples, ff, _avoided(avoid, d))
        value = _value(acqf, X)
        if torch.isfinite(X).all() and math.isfinite(value):
            return X.numpy().copy(), value
    except RuntimeError:  # numerical failures (NotPSDError, NanError, gradient errors)
        pass
    return _best_raw(acqf, B, q, raw_samples, ff)


def _with_starts(
    acqf: AcquisitionFunction,
    B: torch.Tensor,
    num_restarts: int,
    raw_samples: int,
    ff: dict[int, float] | None,
    extra: np.ndarray,
    ineq: list[tuple[torch.Tensor, torch.Tensor, float]] | None = None,
) -> torch.Tensor:
    """``(num_restarts + k, 1, d)`` starts: BoTorch's raw-sample initialization and the
    ``extra (k, d)`` points, moved into the box and onto the fixed features."""
    E = torch.as_tensor(np.asarray(extra, dtype=float), dtype=DTYPE)
    if E.ndim != 2 or E.shape[1] != B.shape[1]:
        raise ValueError(f"extra_starts must have shape (k, {B.shape[1]}), got {tuple(E.shape)}")
    E = torch.max(torch.min(E, B[1]), B[0])
    for j, v in (ff or {}).items():
        E[:, j] = v
    ics = gen_batch_initial_conditions(acqf, B, 1, num_restarts, raw_samples, fixed_features=ff,
                                       inequality_constraints=ineq, options=_CHAIN)  # fmt: skip
    return torch.cat([ics, E.unsqueeze(1)])


def _search_held(
    acqf: AcquisitionFunction,
    B: torch.Tensor,
    q: int,
    held: list[int],
    num_restarts: int,
    raw_samples: int,
    ff: dict[int, float] | None,
    ics: torch.Tensor | None,
    opts: dict[str, Any],
    ineq: list[tuple[torch.Tensor, torch.Tensor, float]] | None = None,
) -> torch.Tensor:
    """The best ``(q, d)`` batch of L-BFGS-B restarts whose ``held`` columns keep the
    values of their starts (BoTorch's raw-sample initialization unless ``ics`` given)."""
    if ics is None:
        ics = gen_batch_initial_conditions(acqf, B, q, num_restarts, raw_samples, fixed_features=ff,
                                           inequality_constraints=ineq, options=_CHAIN)  # fmt: skip
    if len(ff or {}) + len(held) >= B.shape[1]:
        with torch.no_grad():
            return ics[int(torch.argmax(acqf(ics)))]
    # BoTorch takes per-restart held values with inequality constraints one restart at a time
    runs = [
        gen_candidates_scipy(part, acqf, B[0], B[1], inequality_constraints=ineq, options=opts,
                             fixed_features={**(ff or {}), **{c: part[..., c] for c in held}})
        for part in ([ics] if ineq is None else ics.split(1))
    ]  # fmt: skip
    cands, vals = torch.cat([r[0] for r in runs]), torch.cat([r[1] for r in runs])
    return cands[int(torch.argmax(vals))]


class _Rescaled(AcquisitionFunction):
    """``acqf / scale`` (pending points are forwarded to ``acqf``)."""

    def __init__(self, acqf: AcquisitionFunction, scale: float) -> None:
        super().__init__(model=acqf.model)
        self.acqf = acqf
        self.scale = scale

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        return self.acqf(X) / self.scale

    def set_X_pending(self, X_pending: torch.Tensor | None = None) -> None:
        self.acqf.set_X_pending(X_pending)

    @property  # type: ignore[override]
    def X_pending(self) -> torch.Tensor | None:
        return getattr(self.acqf, "X_pending", None)

    @X_pending.setter
    def X_pending(self, value: torch.Tensor | None) -> None:
        if "acqf" in self._modules:
            self.acqf.X_pending = cast(torch.Tensor, value)


def _in_range(
    acqf: AcquisitionFunction, B: torch.Tensor, q: int, ff: dict[int, float] | None
) -> AcquisitionFunction:
    """``acqf``, or, when the model's ``y`` is of extreme scale (:func:`y_unit` not 1),
    ``acqf`` divided by a power of two if its spread over a fixed Sobol probe is outside
    :data:`_SPREAD_RANGE`. For ``y`` of ordinary scale nothing is evaluated, so the
    optimization is exactly the one without this step."""
    model = getattr(acqf, "model", None)
    if model is None or y_unit(model) == 1.0:
        return acqf
    d = B.shape[1]
    U = SobolEngine(q * d, scramble=True, seed=0).draw(_PROBE, dtype=DTYPE)
    Xp = B[0] + (B[1] - B[0]) * U.reshape(_PROBE, q, d)
    for j, fixed in (ff or {}).items():
        Xp[..., j] = fixed
    with torch.random.fork_rng(devices=[]):  # samplers may draw their seeds lazily
        v = _values(copy.deepcopy(acqf), Xp)  # a copy: evaluating fills the model's caches
    v = v[torch.isfinite(v)]
    unit = outside_range_unit(float(v.std()) if v.numel() > 1 else 0.0)
    return acqf if unit == 1.0 else _Rescaled(acqf, unit)


def outside_range_unit(scale: float) -> float:
    """1 if ``scale`` lies in ``[1e-3, 1e3]`` (or is 0 or not finite), else the power of two
    nearest it: the unit to divide values of that scale by, or to multiply an absolute
    tolerance made for values of order one with."""
    lo, hi = _SPREAD_RANGE
    if not math.isfinite(scale) or scale <= 0.0 or lo <= scale <= hi:
        return 1.0
    return float(2.0 ** round(math.log2(scale)))


def y_unit(model: Model) -> float:
    """:func:`outside_range_unit` of the standard deviation ``model`` standardizes ``y``
    with: its outcome transform's, or a ``y_std`` attribute (1 if it has neither)."""
    tf = getattr(model, "outcome_transform", None)
    if tf is not None:
        return outside_range_unit(float(tf.stdvs.reshape(-1)[0]))
    std = getattr(model, "y_std", None)
    return 1.0 if std is None else outside_range_unit(float(std))


class _RelativeFloor:
    """Mixin for BoTorch's analytic acquisitions: their variance floor (1e-12 in the units
    of ``y``) scaled by :func:`y_unit`, so that it acts alike at every scale of ``y``;
    identical to BoTorch's for ``y`` of ordinary scale."""

    def _mean_and_sigma(
        self, X: torch.Tensor, compute_sigma: bool = True, min_var: float = 1e-12
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        floor = min_var * y_unit(self.model) ** 2  # type: ignore[attr-defined]
        return super()._mean_and_sigma(X, compute_sigma=compute_sigma, min_var=floor)  # type: ignore[misc]


class RelativeFloorUCB(_RelativeFloor, UpperConfidenceBound):
    """BoTorch's analytic ``UpperConfidenceBound`` with a scale-relative variance floor."""


class RelativeFloorLogEI(_RelativeFloor, LogExpectedImprovement):
    """BoTorch's analytic ``LogExpectedImprovement`` with a scale-relative variance floor."""


def gaussian_posterior(model: Model, X: torch.Tensor) -> GPyTorchPosterior:
    """``model.posterior(X)`` of a GPyTorch model: a Gaussian with mean, variance and covariance."""
    return cast(GPyTorchPosterior, model.posterior(X))


def negated() -> ScalarizedPosteriorTransform:
    """Posterior transform to ``-f``: BoTorch's acquisitions, made to maximize, then
    minimize ``f`` on a model of ``y`` (isoline's sign convention, :mod:`isoline.methods.base`).
    """
    return ScalarizedPosteriorTransform(torch.tensor([-1.0], dtype=DTYPE))


def _value(acqf: AcquisitionFunction, X: torch.Tensor) -> float:
    with torch.no_grad():
        return float(acqf(X.unsqueeze(0)).reshape(-1)[0])


def _raw(B: torch.Tensor, n: int, q: int, ff: dict[int, float] | None) -> torch.Tensor:
    """``(n, q, d)`` scrambled Sobol batches in the box (seeded by torch's generator)."""
    d = B.shape[1]
    seed = int(torch.randint(2**31 - 1, (1,)))
    U = SobolEngine(q * d, scramble=True, seed=seed).draw(n, dtype=DTYPE)
    Xr = B[0] + (B[1] - B[0]) * U.reshape(n, q, d)
    for j, v in (ff or {}).items():
        Xr[..., j] = v
    return Xr


def _values(acqf: AcquisitionFunction, Xr: torch.Tensor) -> torch.Tensor:
    """``acqf`` at each batch of ``Xr`` ``(n, q, d)``; ``-inf`` where it is not finite."""
    vals = []
    with torch.no_grad():
        for chunk in Xr.split(_CHUNK):
            try:
                vals.append(acqf(chunk).reshape(-1))
            except RuntimeError:
                vals.append(torch.full((len(chunk),), float("nan"), dtype=DTYPE))
    v = torch.cat(vals)
    return torch.where(torch.isfinite(v), v, torch.full_like(v, -math.inf))


def _best_raw(
    acqf: AcquisitionFunction,
    B: torch.Tensor,
    q: int,
    raw_samples: int,
    ff: dict[int, float] | None,
) -> tuple[np.ndarray, float]:
    """Best finite of ``raw_samples`` scrambled Sobol ``q``-batches in the box."""
    Xr = _raw(B, raw_samples, q, ff)
    v = _values(acqf, Xr)
    i = int(torch.argmax(v))
    if not math.isfinite(float(v[i])):
        raise RuntimeError(
            f"acquisition function is not finite at any of {raw_samples} raw samples: the "
            "model's posterior is degenerate (objective values spanning many orders of "
            "magnitude can do this; a log transform of the objective helps)"
        )
    return Xr[i].numpy().copy(), float(v[i])


def _distinct(
    acqf: AcquisitionFunction,
    X: torch.Tensor,
    B: torch.Tensor,
    raw_samples: int,
    ff: dict[int, float] | None,
    avoid: torch.Tensor,
) -> torch.Tensor:
    """``X`` ``(q, d)`` with each row that repeats an earlier one or an ``avoid`` row
    ``(n, d)`` replaced by the raw Sobol point that maximizes ``acqf`` of the batch in
    its place."""
    X = X.clone()
    for j in range(X.shape[0]):
        taken = torch.cat([X[:j], avoid])
        if not len(taken) or torch.cdist(X[j : j + 1], taken).min() > _SAME:
            continue
        candidates = X.expand(raw_samples, *X.shape).clone()
        candidates[:, j] = _raw(B, raw_samples, 1, ff)[:, 0]
        X[j] = candidates[int(torch.argmax(_values(acqf, candidates))), j]
    return X


def _avoided(avoid: np.ndarray | None, d: int) -> torch.Tensor:
    if avoid is None:
        return torch.empty((0, d), dtype=DTYPE)
    A = torch.as_tensor(np.asarray(avoid, dtype=float), dtype=DTYPE)
    if A.ndim != 2 or A.shape[1] != d:
        raise ValueError(f"avoid must have shape (n, {d}), got {tuple(A.shape)}")
    return A


def _check_bounds(bounds: np.ndarray | None, d: int) -> torch.Tensor:
    if bounds is None:
        return unit_bounds(d)
    B = np.asarray(bounds, dtype=float)
    if B.shape != (2, d) or not np.all(np.isfinite(B)):
        raise ValueError(f"bounds must be a finite (2, {d}) array, got shape {B.shape}")
    if np.any(B[0] >= B[1]) or np.any(B[0] < -1e-12) or np.any(B[1] > 1 + 1e-12):
        raise ValueError("bounds must satisfy 0 <= lower < upper <= 1 in every column")
    return torch.as_tensor(np.clip(B, 0.0, 1.0), dtype=DTYPE)


def _check_fixed(ff: Mapping[int, float] | None, B: torch.Tensor) -> dict[int, float] | None:
    if ff is None:
        return None
    d = B.shape[1]
    out: dict[int, float] = {}
    for j, v in dict(ff).items():
        if isinstance(j, bool) or not isinstance(j, (int, np.integer)) or not 0 <= j < d:
            raise ValueError(f"fixed_features keys must be column indices in 0..{d - 1}, got {j!r}")
        v = float(v)
        if not float(B[0, j]) <= v <= float(B[1, j]):
            raise ValueError(f"fixed_features[{j}] = {v} is outside the bounds of column {j}")
        out[int(j)] = v
    return out
