"""TuRBO-1: trust-region Bayesian optimization (Eriksson et al., NeurIPS 2019).

One trust region (TR), a hyper-rectangle centred at the best point of the current run,
side lengths ``L * w_i`` with ``w_i = l_i / (prod_j l_j)^(1/d)`` from the GP's ARD
lengthscales (paper §2). Each batch of ``q`` points is chosen by Thompson sampling inside
the TR: ``q`` posterior sample paths (pathwise/Matheron samples, Wilson et al. 2020)
minimized over scrambled-Sobol candidates in which each coordinate is perturbed from the
centre with probability ``min(1, 20/d)`` (the reference code's candidate scheme).

After each told batch: a batch improving the run's best by more than ``1e-3 |best|`` is a
success, otherwise a failure. ``success_tolerance`` successes in a row double ``L`` (at most
``length_max``); ``failure_tolerance`` failures in a row halve it. When ``L`` falls below
``length_min`` the TR collapses and the run restarts from a fresh Sobol design of
``n_init`` points; the GP only sees the current run's data.

With black-box constraints it is SCBO (Eriksson & Poloczek, "Scalable constrained
Bayesian optimization", AISTATS 2021): a GP per constraint (values bilog-transformed),
constrained Thompson sampling in the TR (each point the feasible minimum of a joint
posterior sample, or its least violating candidate), the TR centred at the best point
judged feasibility first (the best feasible, else the least total violation), and a
batch is a success when it improves on that order. A failed evaluation imputes as
infeasible (:func:`isoline.methods.gp_outputs.impute_outputs`) and never counts as a
success.

On a space with known linear constraints every candidate lies in the intersection of the
TR box and the feasible polytope: the perturbed Sobol candidates that satisfy the
constraints, in order, and, when too few do, hit-and-run samples of that intersection
(:meth:`~isoline.input_constraints.UnitConstraints.sample` with the TR box as bounds);
the TR is centred at the best point moved into the feasible region if it lies outside
(a point told from elsewhere), and restart designs are feasible Sobol points.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch
from botorch.sampling.pathwise import draw_matheron_paths
from torch.quasirandom import SobolEngine

from isoline.designs import sobol
from isoline.methods.base import Method
from isoline.methods.gp_outputs import impute_outputs
from isoline.methods.local import LocalGP
from isoline.methods.registry import register
from isoline.models.gp import GP, fit_gp
from isoline.models.rounding import space_rounding
from isoline.validation import check_float, check_int, check_positive

__all__ = ["TuRBO", "best_row", "bilog", "violation"]


def bilog(c: np.ndarray) -> np.ndarray:
    """``sign(c) log(1 + |c|)``: SCBO's transform of constraint values, which keeps the
    sign (so feasibility) and tames large violations for the GP."""
    return np.sign(c) * np.log1p(np.abs(c))


def violation(Y: np.ndarray) -> np.ndarray:
    """``(n,)`` total violation ``sum max(c, 0)`` of rows ``Y (n, 1 + c)`` (objective,
    then constraints)."""
    return np.maximum(Y[:, 1:], 0.0).sum(axis=1)


def best_row(Y: np.ndarray) -> int:
    """Index of the best row of ``Y (n, 1 + c)``, feasibility first: the feasible row of
    least objective, or, when none is feasible, the row of least total violation."""
    v = violation(Y)
    feasible = np.flatnonzero(v == 0.0)
    if feasible.size:
        return int(feasible[np.argmin(Y[feasible, 0])])
    return int(np.argmin(v))


@register
class TuRBO(Method):
    """TuRBO-1 (Eriksson et al. 2019, Algorithm 1 with one trust region).

    Options:
        length_init: initial TR side length ``L`` in the unit cube (default 0.8).
        length_min: restart when ``L`` falls below this (default ``0.5^7``).
        length_max: largest ``L`` (default 1.6).
        success_tolerance: successes in a row that double ``L`` (default 3, the paper).
        failure_tolerance: failures in a row that halve ``L``; default
            ``ceil(max(4 / q, d / q))`` (paper).
        n_candidates: Thompson-sampling candidates per batch; default
            ``min(5000, candidates_per_dim * d)``.
        candidates_per_dim: the default candidates per dimension (200, as BoTorch's TuRBO
            tutorial; the paper's reference code takes 100). Ignored when ``n_candidates``
            is given.
        kernel: ``"matern52"`` (the paper's) or ``"rbf"``; ARD.
        lengthscale, outputscale, noise: fixed GP hyperparameters (as for the local
            methods, :class:`~isoline.methods.local.LocalBO`); ``None`` fits them.
        refit_growth: free hyperparameters are refitted (warm-started) once the run's data
            has grown by this fraction since the last fit, and reused in between
            (default 0.1; 0 refits every batch as the reference code does). Keeps the
            cost of a 500-evaluation run at ``O(log n)`` fits.
        fit_ftol: relative tolerance of the hyperparameter fit's L-BFGS-B
            (:func:`isoline.models.gp.fit_gp`); ``None`` = scipy's default.
        log_params: fit the learned lengthscales and noise in log space
            (:func:`isoline.models.gp.fit_gp`).
    """

    name = "turbo"
    summary = "GP in a trust region (TuRBO-1)"
    family = "local BO"
    paper = "Eriksson et al., NeurIPS 2019 (TuRBO-1); Eriksson & Poloczek, AISTATS 2021 (SCBO)"
    supports_constraints = True
    supports_input_constraints = True

    def __init__(
        self,
        dim: int,
        *,
        length_init: float = 0.8,
        length_min: float = 0.5**7,
        length_max: float = 1.6,
        success_tolerance: int = 3,
        failure_tolerance: int | None = None,
        n_candidates: int | None = None,
        candidates_per_dim: int = 200,
        kernel: str = "matern52",
        lengthscale: float | list[float] | None = None,
        outputscale: float | None = None,
        noise: float | None = None,
        refit_growth: float = 0.1,
        fit_ftol: float | None = None,
        log_params: bool = False,
        **common: Any,
    ) -> None:
        super().__init__(dim, **common)
        gp_opts = LocalGP(  # validates them
            dim, kernel, 2, lengthscale, outputscale, noise, fit_ftol, log_params
        )
        self.lengthscale, self.outputscale, self.noise = (
            gp_opts.lengthscale, gp_opts.outputscale, gp_opts.noise,
        )  # fmt: skip
        self.fit_ftol, self.log_params = gp_opts.ftol, gp_opts.log_params
        self.refit_growth = check_float(refit_growth, "refit_growth", 0.0)
        self.length_max = check_positive(length_max, "length_max")
        self.length_min = check_float(length_min, "length_min", 0.0, self.length_max, low_open=True)
        self.length_init = check_float(
            length_init, "length_init", 0.0, self.length_max, low_open=True
        )
        if not self.length_min < self.length_init:
            raise ValueError(
                f"length_init must be in (length_min, length_max] = ({self.length_min}, "
                f"{self.length_max}], got {length_init}"
            )
        self.success_tolerance = check_int(success_tolerance, "success_tolerance", 1)
        q = self.batch_size
        ft = math.ceil(max(4.0 / q, dim / q)) if failure_tolerance is None else failure_tolerance
        self.failure_tolerance = check_int(ft, "failure_tolerance", 1)
        per_dim = check_int(candidates_per_dim, "candidates_per_dim", 1)
        nc = min(5000, per_dim * dim) if n_candidates is None else n_candidates
        self.n_candidates = check_int(nc, "n_candidates", 1)
        self.kernel = kernel
        self.length = self.length_init
        self.n_success = 0
        self.n_failure = 0
        self.n_restarts = 0
        self._run_start = 0  # index of the first observation of the current run
        self._queue: list[np.ndarray] = []  # restart design points still to hand out
        self._gp_state: dict[str, np.ndarray] | None = None  # last fit, warm start
        self._gp_states: list[dict[str, np.ndarray]] | None = None  # per output (SCBO)
        self._fit_n = 0
        self._run_design = self.n_init  # size of the current run's initial design

    # -- proposals ---------------------------------------------------------------------------
    def propose(self, q: int) -> np.ndarray:
        out = self._queue[:q]
        self._queue = self._queue[q:]
        if len(out) < q:
            out += list(self._thompson(q - len(out)))
        return np.array(out)

    def _thompson(self, q: int) -> np.ndarray:
        """``q`` Thompson samples minimized over candidates in the TR, ``(q, d)``."""
        if self.n_constraints:
            return self._constrained_thompson(q)
        X, y = self.data()
        X, y = X[self._run_start :], y[self._run_start :]
        if len(y) < 2:  # a run needs data: fall back to uniform points
            return self.uniform(q)
        with self.torch_rng() as seed:
            refit = self._gp_state is None or len(y) >= (1.0 + self.refit_growth) * self._fit_n
            gp = self._fit_gp(X, y, refit, self._gp_state)
            if refit:
                self._gp_state, self._fit_n = gp.state(), len(y)
            cand = self._candidates(X[np.argmin(y)], gp.lengthscales, seed)
            paths = draw_matheron_paths(gp.model, sample_shape=torch.Size([q]))
            with torch.no_grad():
                vals = paths(torch.as_tensor(cand)).reshape(q, -1).numpy()  # (q, N)
        chosen: list[int] = []
        for j in range(q):  # each sample's argmin, without repeating a candidate
            order = np.argsort(vals[j], kind="stable")
            chosen.append(int(next(i for i in order if i not in chosen)))
        return cand[chosen]

    def _fit_gp(
        self, X: np.ndarray, y: np.ndarray, refit: bool, state: dict[str, np.ndarray] | None
    ) -> GP:
        return fit_gp(
            X, y, kernel=self.kernel, lengthscale=self.lengthscale,
            outputscale=self.outputscale, noise=self.noise, fit=refit, init=state,
            input_transform=space_rounding(self.space), ftol=self.fit_ftol,
            log_params=self.log_params,
        )  # fmt: skip

    def _candidates(self, x0: np.ndarray, ls: np.ndarray, seed: int) -> np.ndarray:
        """Sobol candidates in the TR around ``x0`` shaped by the lengthscales ``ls``,
        each coordinate perturbed with probability ``min(1, 20 / d)``; on a space with
        linear constraints, candidates in the TR's part of the feasible region."""
        lin = self.input_constraints
        if lin is not None:
            x0 = lin.repair(x0[None])[0]
        w = ls / np.exp(np.mean(np.log(ls)))
        lb = np.clip(x0 - w * self.length / 2, 0.0, 1.0)
        ub = np.clip(x0 + w * self.length / 2, 0.0, 1.0)
        if lin is None:
            return self._perturbed(x0, lb, ub, self.n_candidates, seed, self.rng, self.rng)

        def draw(m: int) -> np.ndarray:  # its first rows do not depend on m
            rngs = np.random.default_rng([seed, 0]), np.random.default_rng([seed, 1])
            return self._perturbed(x0, lb, ub, m, seed, *rngs)

        box = np.stack([lb, ub])
        return lin.sample(draw, self.n_candidates, seed, bounds=box, thinning=1)

    def _perturbed(
        self,
        x0: np.ndarray,
        lb: np.ndarray,
        ub: np.ndarray,
        n: int,
        seed: int,
        mask_rng: np.random.Generator,
        pick_rng: np.random.Generator,
    ) -> np.ndarray:
        """``n`` scrambled Sobol points of the box ``[lb, ub]``, each coordinate taken from
        them with probability ``min(1, 20 / d)`` (``mask_rng``) and else from ``x0``; a
        point left equal to ``x0`` gets one coordinate chosen by ``pick_rng``."""
        d = self.dim
        U = SobolEngine(d, scramble=True, seed=seed).draw(n, dtype=torch.float64)
        pert = lb + (ub - lb) * U.numpy()
        mask = mask_rng.random((n, d)) <= min(1.0, 20.0 / d)
        empty = ~mask.any(axis=1)
        mask[empty, pick_rng.integers(d, size=int(empty.sum()))] = True
        return np.where(mask, pert, x0)

    def _constrained_thompson(self, q: int) -> np.ndarray:
        """SCBO's batch: one GP per output (constraints bilog-transformed), a joint
        posterior sample of all outputs per batch point; each point is the sample's
        feasible minimum among the candidates, or its least violating candidate when
        the sample deems none feasible."""
        X, Y = self.X[self._run_start :], self.Y[self._run_start :]
        if np.isfinite(Y).all(axis=1).sum() < 2:
            return self.uniform(q)
        Y = impute_outputs(Y, 1)
        Y[:, 1:] = bilog(Y[:, 1:])
        with self.torch_rng() as seed:
            refit = self._gp_states is None or len(X) >= (1.0 + self.refit_growth) * self._fit_n
            states: list[dict[str, np.ndarray] | None] = [None] * Y.shape[1]
            states = list(self._gp_states or states)
            gps = [self._fit_gp(X, Y[:, j], refit, states[j]) for j in range(Y.shape[1])]
            if refit:
                self._gp_states, self._fit_n = [gp.state() for gp in gps], len(X)
            cand = self._candidates(X[best_row(Y)], gps[0].lengthscales, seed)
            C = torch.as_tensor(cand)
            with torch.no_grad():
                S = np.stack(
                    [
                        draw_matheron_paths(gp.model, sample_shape=torch.Size([q]))(C)
                        .reshape(q, -1)
                        .numpy()
                        for gp in gps
                    ],
                    axis=-1,
                )  # (q, N, m)
        chosen: list[int] = []
        for j in range(q):
            free = np.ones(len(cand), dtype=bool)
            free[chosen] = False
            chosen.append(int(np.flatnonzero(free)[best_row(S[j][free])]))
        return cand[chosen]

    # -- trust-region update ----------------------------------------------------------------
    def observe(self, X: np.ndarray, y: np.ndarray) -> None:
        if len(self.y) - self._run_start <= self._run_design:
            return  # the run's initial design is not complete: no TR update yet
        if self.n_constraints:
            success = self._constrained_success(len(y))
            if success is None:
                return
        else:
            prev = self.y[self._run_start : len(self.y) - len(y)]
            prev = prev[np.isfinite(prev)]
            new = y[np.isfinite(y)]
            if prev.size == 0:
                return
            best = float(prev.min())
            success = bool(new.size) and float(new.min()) < best - 1e-3 * abs(best)
        if success:
            self.n_success, self.n_failure = self.n_success + 1, 0
        else:
            self.n_success, self.n_failure = 0, self.n_failure + 1
        if self.n_success >= self.success_tolerance:
            self.length, self.n_success = min(2.0 * self.length, self.length_max), 0
        elif self.n_failure >= self.failure_tolerance:
            self.length, self.n_failure = self.length / 2.0, 0
        if self.length < self.length_min:
            self._restart()

    def _constrained_success(self, n_new: int) -> bool | None:
        """SCBO's judgement of the last ``n_new`` rows against the run's earlier ones:
        a feasible row improving the best feasible value (by ``1e-3 |best|``), or, before
        any feasible row, a row of smaller total violation. ``None`` without earlier rows;
        a failed row (a missing output) never improves."""
        prev = self.Y[self._run_start : len(self.Y) - n_new]
        prev = prev[np.isfinite(prev).all(axis=1)]
        new = self.Y[len(self.Y) - n_new :]
        new = new[np.isfinite(new).all(axis=1)]
        if not len(prev):
            return None
        if not len(new):
            return False
        a, b = prev[best_row(prev)], new[best_row(new)]
        if violation(a[None])[0] == 0.0:
            best = float(a[0])
            return violation(b[None])[0] == 0.0 and float(b[0]) < best - 1e-3 * abs(best)
        return bool(violation(b[None])[0] < violation(a[None])[0])

    def _restart(self) -> None:
        """TR collapse: a new run from a fresh Sobol design (TuRBO §2, restarts)."""
        self.n_restarts += 1
        self.length = self.length_init
        self.n_success = self.n_failure = 0
        self._run_start = len(self.y)
        self._gp_state = self._gp_states = None
        n = max(self.n_init, 2)
        self._run_design = n
        seed = self.seed + 7919 * self.n_restarts
        if self.input_constraints is None:
            self._queue = list(sobol(n, self.dim, seed=seed))
        else:
            design = lambda m: sobol(m, self.dim, seed=seed)  # noqa: E731
            self._queue = list(self.input_constraints.sample(design, n, seed))
