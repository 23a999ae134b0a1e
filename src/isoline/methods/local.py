"""Shared machinery of the local BO methods: GIBO, MPD, MinUCB and LA-MinUCB.

What the four algorithms share (Fan et al., "Minimizing UCB: a better local search
strategy in local Bayesian optimization", NeurIPS 2024, Algorithms 1-3; GIBO: Mueller et
al., "Local policy search with Bayesian optimization", NeurIPS 2021; MPD: Nguyen et al.,
"Local Bayesian optimization via maximizing probability of descent", NeurIPS 2022):

* a GP on a **local data window**, the last ``n_max`` observations (the ``N_max`` of the
  GIBO/MPD code), with hyperparameters either fixed (the papers' synthetic setting) or
  fitted on the window once per iteration (:class:`LocalGP`);
* the **gradient-information criterion** (MinUCB eq. (5), GIBO's acquisition): the trace
  of the posterior covariance of ``grad f(x_t)`` after adding candidate points, minimized
  greedily one point at a time inside the box ``x_t +- delta`` (:class:`GradientInformation`,
  :func:`greedy_samples`). It depends on where points are, never on their values, so a
  whole sampling batch can be planned before any of it is evaluated;
* the **UCB move** ``argmin_x mu(x) + beta sigma(x)`` of MinUCB (Alg. 1 line 8) and
  LA-MinUCB (Alg. 2 line 6) (:mod:`isoline.methods.ucb_move`);
* the ask/tell **state machine** (:class:`LocalBO`): an algorithm iteration evaluates
  several points, so the method keeps a queue of planned points, hands them out ``q`` at a
  time and plans the next phase only once every planned point has been told. All state is
  plain numpy and the randomness comes from ``self.rng``, so a pickled method resumes the
  same trajectory.

Everything is in the unit cube and minimizes. Covariances are in the units of ``y``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from botorch.acquisition import AcquisitionFunction
from botorch.models.model import Model
from botorch.utils.transforms import t_batch_mode_transform

from isoline.acquisition import maximize
from isoline.methods.base import Method
from isoline.methods.ucb_move import box_around
from isoline.models.derivatives import GradientCrossCovariance
from isoline.models.gp import GP, KERNELS, fit_gp
from isoline.validation import (
    check_bool,
    check_choice,
    check_float,
    check_int,
    check_positive,
    check_positive_vector,
)

__all__ = [
    "GradientInformation",
    "Hypers",
    "LocalBO",
    "LocalGP",
    "greedy_samples",
]

DTYPE = torch.float64


# -- the local GP ------------------------------------------------------------------------
@dataclass(frozen=True)
class Hypers:
    """GP hyperparameters in ``y`` units: ``(d,)`` lengthscales, prior and noise variance
    (``None``: learned by the fit)."""

    lengthscale: np.ndarray | None
    outputscale: float | None
    noise: float | None


class LocalGP:
    """GP on the last ``n_max`` observations, hyperparameters fixed or fitted.

    A fixed value (``lengthscale``, ``outputscale``, ``noise``; variances in ``y`` units)
    is used as given; ``None`` is learned by :func:`isoline.models.gp.fit_gp` (BoTorch
    priors; with ``outputscale=None`` the prior variance is that of the standardized window).
    The prior mean is the window mean of ``y`` (``fit_gp(mean="zero")`` on standardized
    outputs), as the MPD code's standardization gives.
    """

    def __init__(
        self,
        dim: int,
        kernel: str,
        n_max: int,
        lengthscale: float | list[float] | None,
        outputscale: float | None,
        noise: float | None,
        ftol: float | None = None,
        log_params: bool = False,
    ) -> None:
        self.dim = dim
        self.kernel = check_choice(kernel, "kernel", KERNELS)
        self.n_max = check_int(n_max, "n_max", 2)
        self.lengthscale = (
            None if lengthscale is None else check_positive_vector(lengthscale, "lengthscale", dim)
        )
        self.outputscale = (
            None if outputscale is None else check_positive(outputscale, "outputscale")
        )
        self.noise = None if noise is None else check_float(noise, "noise", 0.0)
        self.ftol = None if ftol is None else check_positive(ftol, "fit_ftol")
        self.log_params = check_bool(log_params, "log_params")

    @property
    def fixed(self) -> bool:
        """Whether every hyperparameter is fixed (nothing to fit)."""
        return self.lengthscale is not None and self.noise is not None

    def window(self, X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The last ``n_max`` rows of ``X (n, d)`` and ``y (n,)``."""
        return X[-self.n_max :], y[-self.n_max :]

    def fit(self, X: np.ndarray, y: np.ndarray, init: dict[str, np.ndarray] | None = None) -> GP:
        """GP on the window of ``(X, y)``, free hyperparameters fitted (torch RNG used),
        warm-started from ``init`` (a :meth:`GP.state`) if given."""
        Xw, yw = self.window(X, y)
        h = Hypers(self.lengthscale, self.outputscale, self.noise)
        return self._gp(Xw, yw, h, fit=not self.fixed and len(yw) >= 2, init=init)

    def with_hypers(self, X: np.ndarray, y: np.ndarray, h: Hypers) -> GP:
        """GP on the window of ``(X, y)`` with the hyperparameters ``h`` (no fitting)."""
        Xw, yw = self.window(X, y)
        return self._gp(Xw, yw, h, fit=False)

    def _gp(
        self,
        X: np.ndarray,
        y: np.ndarray,
        h: Hypers,
        fit: bool,
        init: dict[str, np.ndarray] | None = None,
    ) -> GP:
        return fit_gp(
            X, y, kernel=self.kernel, noise=h.noise, lengthscale=h.lengthscale,
            outputscale=h.outputscale, mean="zero", fit=fit, init=init, ftol=self.ftol,
            log_params=self.log_params,
        )  # fmt: skip


def hypers_of(gp: GP) -> Hypers:
    """The hyperparameters of a fitted GP, in ``y`` units."""
    return Hypers(gp.lengthscales, gp.outputscale, gp.noise)


# -- acquisition functions -------------------------------------------------------------
class GradientInformation(AcquisitionFunction):
    """GIBO's sampling criterion (MinUCB eq. (5)) as a variance reduction, maximized.

    ``alpha(z) = ||c(z)||^2 / s(z)``: how much adding ``z`` lowers the trace of the posterior
    covariance of ``grad f(x)``; maximizing it minimizes ``alpha_trace(x, D + z)``.
    Input ``(b, 1, d)``, output ``(b,)`` in ``y`` units squared.
    """

    def __init__(self, model: Model, x: np.ndarray) -> None:
        super().__init__(model)
        self.cross = GradientCrossCovariance(model, x)

    @t_batch_mode_transform(expected_q=1)  # type: ignore[arg-type]  # typed for the base class
    def forward(self, X: torch.Tensor) -> torch.Tensor:
        c, s = self.cross(X)
        return c.square().sum(-1) / s


# -- the sampling points --------------------------------------------------------------
def greedy_samples(
    local: LocalGP,
    h: Hypers,
    X_obs: np.ndarray,
    y_obs: np.ndarray,
    planned: list[np.ndarray],
    center: np.ndarray,
    n: int,
    delta: float,
    make_acqf: Callable[[Model, np.ndarray], AcquisitionFunction],
    seeds: np.random.Generator,
    num_restarts: int,
    raw_samples: int,
    epsilon: float | None = None,
    multiple: int = 1,
) -> list[np.ndarray]:
    """Choose up to ``n`` sampling points one at a time (GIBO Alg. 3 line 3, greedily).

    Each point maximizes ``make_acqf(model, center)`` inside ``center +- delta``, where the
    model holds the window of the observed points ``X_obs``/``y_obs`` followed by the
    points ``planned`` so far. Their values are not needed: the criteria depend on
    locations only, and with fixed hyperparameters the posterior covariance does not
    depend on ``y``, so placeholders are used.

    With ``epsilon``, sampling stops once a point (after the first) lowers the trace of the
    gradient covariance by less than ``epsilon`` (the GIBO code's ``epsilon_diff_acq_value``),
    at a moment when ``len(planned) + chosen`` is a multiple of ``multiple`` (full batches).
    Randomness (BoTorch's raw samples) is seeded from ``seeds``.
    """
    out: list[np.ndarray] = []
    fill = float(np.mean(y_obs)) if len(y_obs) else 0.0
    B = box_around(center, delta)
    for k in range(n):
        pts = planned + out
        X = np.vstack([X_obs] + ([np.array(pts)] if pts else []))
        y = np.concatenate([y_obs, np.full(len(pts), fill)])
        gp = local.with_hypers(X, y, h)
        acqf = make_acqf(gp.model, center)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(int(seeds.integers(2**31 - 1)))
            z, _ = maximize(acqf, center.size, 1, bounds=B, num_restarts=num_restarts,
                            raw_samples=raw_samples)  # fmt: skip
        z = np.clip(z.reshape(-1), 0.0, 1.0)
        out.append(z)
        if epsilon is not None and k >= 1 and (len(planned) + len(out)) % multiple == 0:
            with torch.no_grad():
                gain = GradientInformation(gp.model, center)(torch.as_tensor(z)[None, None])
            if float(gain) < epsilon:
                break
    return out


# -- the ask/tell state machine ------------------------------------------------------------
class LocalBO(Method):
    """Base of the local methods: GP options, the local window and the point queue.

    An algorithm iteration is split into *phases*: lists of points whose choice needs only
    values already observed. :meth:`propose` hands out queued points; when the queue is
    empty and every handed-out point has been told, it calls :meth:`_advance` (subclasses:
    plan the next phase from all data); when more points are asked while values are still
    missing, it calls :meth:`_extend` (subclasses: more points that do not need them).

    The run starts from the best point of the initial design (default
    ``max(2, min(2 d, 20))`` scrambled-Sobol points, as isoline's other GP methods; the
    papers start from one Sobol point, ``n_init=1``, §8), or from the centre of the cube
    with ``n_init=0``.

    Options (shared):
        n_max: local window, the last ``n_max`` observations (default ``5 d``, GIBO/MPD
            synthetic setting).
        kernel: ``"rbf"`` (the papers' SE kernel) or ``"matern52"``.
        lengthscale: fixed ARD lengthscale(s) in unit-cube units, or ``None`` to fit.
        outputscale: fixed prior variance of ``f`` in ``y`` units, or ``None``.
        noise: fixed noise variance in ``y`` units, or ``None`` to fit.
        num_restarts, raw_samples: acquisition optimizer starts and raw points.
        fit_ftol: relative tolerance of the hyperparameter fit's L-BFGS-B
            (:func:`isoline.models.gp.fit_gp`); ``None`` = scipy's default.
        log_params: fit the learned lengthscales and noise in log space
            (:func:`isoline.models.gp.fit_gp`).
    """

    family = "local BO"
    needs_data = False
    default_init = "sobol"

    def __init__(
        self,
        dim: int,
        *,
        n_max: int | None = None,
        kernel: str = "rbf",
        lengthscale: float | list[float] | None = None,
        outputscale: float | None = None,
        noise: float | None = None,
        num_restarts: int = 5,
        raw_samples: int = 64,
        fit_ftol: float | None = None,
        log_params: bool = False,
        **common: Any,
    ) -> None:
        super().__init__(dim, **common)
        self.local = LocalGP(
            self.dim, kernel, 5 * self.dim if n_max is None else n_max, lengthscale,
            outputscale, noise, fit_ftol, log_params,
        )  # fmt: skip
        self.num_restarts = check_int(num_restarts, "num_restarts", 1)
        self.raw_samples = check_int(raw_samples, "raw_samples", 1)
        self.center: np.ndarray | None = None
        self.iteration = 0
        self._hypers: Hypers | None = None
        self._gp_state: dict[str, np.ndarray] | None = None
        self._queue: list[np.ndarray] = []
        self._pending: dict[bytes, list[np.ndarray]] = {}
        #: points of the current phase (planned, in order), for the planning window
        self._phase: list[np.ndarray] = []

    @classmethod
    def default_n_init(cls, dim: int) -> int:
        """``max(2, min(2 d, 20))`` like the other GP methods (the papers use 1)."""
        return max(2, min(2 * dim, 20))

    # -- queue ---------------------------------------------------------------------------
    def propose(self, q: int) -> np.ndarray:
        while len(self._queue) < q:
            if not self._queue and not self._pending:
                self._phase = []
                new = self._advance()
            else:
                new = self._extend(q - len(self._queue))
            if not new:
                raise RuntimeError(f"{type(self).__name__} planned no points")
            new = [np.clip(np.asarray(x, dtype=float).reshape(-1), 0.0, 1.0) for x in new]
            self._phase.extend(new)
            self._queue.extend(new)
        out, self._queue = self._queue[:q], self._queue[q:]
        for x in out:
            self._pending.setdefault(x.tobytes(), []).append(x)
        return np.array(out)

    def observe(self, X: np.ndarray, y: np.ndarray) -> None:
        for x in X:
            key = np.ascontiguousarray(x).tobytes()
            if key in self._pending:
                self._pending[key].pop()
                if not self._pending[key]:
                    del self._pending[key]

    def _untold(self) -> list[np.ndarray]:
        """Points of the current phase handed out or queued but not yet told."""
        pend = [x for xs in self._pending.values() for x in xs]
        return pend + list(self._queue)

    # -- helpers for subclasses ----------------------------------------------------------
    def _observed(self) -> tuple[np.ndarray, np.ndarray]:
        """All told points and values (failures imputed with the worst value)."""
        X, y = self.data()
        return X, y

    def _start(self) -> tuple[np.ndarray, bool]:
        """Start point ``x_1``: best observed point (True) or the cube centre (False)."""
        b = self.best
        if b is None:
            return np.full(self.dim, 0.5), False
        return b[0], True

    def _fit(self) -> GP | None:
        """Fit the window GP on the observed data (warm-started from the previous fit) and
        remember its hyperparameters."""
        X, y = self._observed()
        if len(y) == 0:
            return None
        with self.torch_rng():
            gp = self.local.fit(X, y, init=self._gp_state)
        self._hypers = hypers_of(gp)
        if not self.local.fixed:
            self._gp_state = gp.state()  # warm start of the next fit
        return gp

    def _planning_hypers(self) -> Hypers:
        """Hyperparameters for location-only planning: fixed, or the last fitted ones
        (before the first fit: fitted on the data so far, or the defaults)."""
        if self._hypers is None:
            X, y = self._observed()
            if len(y) == 0:
                X, y = np.full((1, self.dim), 0.5), np.zeros(1)
            with self.torch_rng():
                self._hypers = hypers_of(self.local.fit(X, y))
        return self._hypers

    def _anchors(self, gp: GP, k: int = 4) -> np.ndarray:
        """Current point and the ``k`` best window points (by posterior mean)."""
        Xw = gp.model.train_inputs[0].numpy()
        mean, _ = gp.posterior(Xw)
        best = Xw[np.argsort(mean, kind="stable")[:k]]
        pts = [self.center] if self.center is not None else []
        return np.unique(np.vstack(pts + [best]), axis=0)

    @property
    def x_t(self) -> np.ndarray:
        """The current iterate ``x_t`` (set by the first :meth:`_advance`)."""
        if self.center is None:
            raise RuntimeError(f"{type(self).__name__} has no current point before its first step")
        return self.center

    def _seed(self) -> int:
        return int(self.rng.integers(2**31 - 1))

    # -- for subclasses ------------------------------------------------------------------
    def _advance(self) -> list[np.ndarray]:
        """Plan the next phase from the observed data (every planned point is told)."""
        raise NotImplementedError

    def _extend(self, k: int) -> list[np.ndarray]:
        """``>= 1`` more points for the current phase without the missing values."""
        raise NotImplementedError


class GradientLocalBO(LocalBO):
    """Base of GIBO, MPD and MinUCB: evaluate ``x_t`` (``n_repeat`` times), sample
    ``n_samples`` points near it by a location-only criterion, then move.

    The sampling batch is planned in full at the start of the iteration (its criterion
    does not depend on the values) and padded so that the iteration fills whole batches
    of ``batch_size``. Subclasses define :meth:`_criterion` and :meth:`_move`.
    """

    n_repeat: int = 1
    n_samples: int = 1
    delta: float = 0.2
    epsilon: float | None = None

    def _criterion(self) -> Callable[[Model, np.ndarray], AcquisitionFunction]:
        """Factory ``(model, center) -> acquisition`` for the sampling points."""
        return GradientInformation

    def _move(self) -> np.ndarray:
        """The next iterate ``x_{t+1}`` from all observed data."""
        raise NotImplementedError

    def _advance(self) -> list[np.ndarray]:
        repeats = self.n_repeat
        if self.center is None:
            self.center, evaluated = self._start()
            repeats -= int(evaluated)  # the initial-design evaluation of x_1 counts
        else:
            self.center = np.clip(self._move(), 0.0, 1.0)
            self.iteration += 1
        head = [self.center.copy() for _ in range(repeats)]
        q = self.batch_size
        total = int(math.ceil((len(head) + self.n_samples) / q) * q)
        return head + self._samples(total - len(head), head, self.epsilon)

    def _extend(self, k: int) -> list[np.ndarray]:
        return self._samples(k, [], None)

    def _samples(self, n: int, head: list[np.ndarray], epsilon: float | None) -> list[np.ndarray]:
        """Up to ``n`` sampling points around ``center`` (fewer if ``epsilon`` stops early)."""
        if n <= 0:
            return []
        X, y = self._observed()
        return greedy_samples(
            self.local, self._planning_hypers(), X, y, self._untold() + head, self.x_t,
            n, self.delta, self._criterion(), self.rng, self.num_restarts, self.raw_samples,
            epsilon=epsilon, multiple=self.batch_size,
        )  # fmt: skip
