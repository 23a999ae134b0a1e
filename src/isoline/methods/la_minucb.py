"""LA-MinUCB: look-ahead local BO by minimizing the UCB (Fan et al., NeurIPS 2024, Alg. 2).

For minimization, with ``UCB_D(x) = mu_D(x) + beta sigma_D(x)``:

    for t = 1, 2, ...
        X = argmin_Z E_{y_Z} min_x UCB_{D + (Z, y_Z)}(x),  Z: b points   line 3 (eq. (6))
        evaluate f on X; D_t = D_{t-1} + (X, y)                          lines 4-5
        x_{t+1} = argmin_x UCB_{D_t}(x); evaluate it; add it to D_t         lines 6-8

Line 3 is optimized **one-shot** as BoTorch does for the knowledge gradient (Balandat et
al. 2020, §4.2; MinUCB paper Appendix A): the inner minimizers ``x^(1..F)``, one per
fantasy, are optimized jointly with ``Z`` on the sample-average objective

    -(1/F) sum_i [ mu_i(x^(i)) + beta sigma_i(x^(i)) ],

where fantasy ``i`` conditions the GP on ``(Z, y_Z^(i))``, ``y_Z^(i) = mu(Z) + L eps_i``,
``L L^T = Sigma_ZZ + noise I`` and ``eps_i`` fixed quasi-random normal base samples.
:class:`LookaheadUCB` evaluates this in closed form from one joint posterior of
``[Z; x^(1..F)]`` (the fantasy mean is linear in ``y_Z`` and the fantasy variance does not
depend on it); it equals the value computed through ``model.fantasize`` with the same base
samples (tested).

Batches (``batch_size = q > 1``): one batch holds the UCB move ``x_{t+1}`` and the first
``q - 1`` look-ahead points, chosen with ``x_{t+1}`` pending (its value is fantasized too);
the look-ahead batch is padded to ``b' = ceil((b + 1) / q) q - 1`` so that iterations fill
whole batches. With ``q = 1`` the loop is exactly Algorithm 2.
"""

from __future__ import annotations

import math
from typing import Any, cast

import numpy as np
import torch
from botorch.acquisition import AcquisitionFunction
from botorch.models.model import Model
from botorch.sampling.qmc import NormalQMCEngine

from isoline.acquisition import maximize
from isoline.methods.local import LocalBO
from isoline.methods.registry import register
from isoline.methods.ucb_move import box_around, minimize_ucb, sobol_box
from isoline.models.derivatives import JointPosterior
from isoline.models.linalg import cholesky
from isoline.validation import check_choice, check_float, check_int, check_positive

__all__ = ["LAMinUCB", "LookaheadUCB"]

DTYPE = torch.float64


class LookaheadUCB(AcquisitionFunction):
    """One-shot look-ahead UCB (MinUCB paper eq. (6)), negated for maximization.

    Args:
        model: the GP (``y`` units; BoTorch model with a Gaussian likelihood).
        beta: UCB weight on ``sigma`` (``> 0``).
        base_samples: ``(F, n + p)`` standard normal fantasy base samples.
        noise: observation noise variance in ``y`` units.
        X_pending: ``(p, d)`` points already chosen whose values are fantasized too.

    ``forward`` takes ``X (b, n + F, d)``: the first ``n`` rows are the look-ahead points
    ``Z``, the last ``F`` the fantasy minimizers; returns ``(b,)``:
    ``-(1/F) sum_i [mu_i(x^(i)) + beta sigma_i(x^(i))]``.
    """

    def __init__(
        self,
        model: Model,
        beta: float,
        base_samples: torch.Tensor,
        noise: float,
        X_pending: torch.Tensor | None = None,
    ) -> None:
        super().__init__(model)
        self.beta = float(beta)
        self.eps = base_samples.to(DTYPE)
        self.num_fantasies = int(base_samples.shape[0])
        self.noise = float(noise)
        self.X_pend = None if X_pending is None or len(X_pending) == 0 else X_pending.to(DTYPE)
        self._joint = JointPosterior(model)

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        F = self.num_fantasies
        Z, Xf = X[..., :-F, :], X[..., -F:, :]
        if self.X_pend is not None:
            Z = torch.cat([Z, self.X_pend.expand(*Z.shape[:-2], *self.X_pend.shape)], dim=-2)
        m = Z.shape[-2]
        if self.eps.shape[-1] != m:
            raise ValueError(f"base_samples have {self.eps.shape[-1]} columns, need {m}")
        mean, cov = self._joint(torch.cat([Z, Xf], dim=-2))  # (b, m+F), (b, m+F, m+F)
        Szz = cov[..., :m, :m] + self.noise * torch.eye(m, dtype=DTYPE)
        L = cholesky(Szz, max_jitter=1e-2)
        W = torch.linalg.solve_triangular(L, cov[..., :m, m:], upper=False)  # (b, m, F)
        mu_f = mean[..., m:] + (W * self.eps.T).sum(-2)  # fantasy i's mean at x^(i)
        prior_var = cov[..., m:, m:].diagonal(dim1=-2, dim2=-1)
        var_f = prior_var - W.square().sum(-2)
        ucb = mu_f + self.beta * torch.maximum(var_f, 1e-12 * prior_var).sqrt()
        return -ucb.mean(-1)


#: choices of LA-MinUCB's ``lookahead_region``
LOOKAHEAD_REGIONS = ("local", "cube")


@register
class LAMinUCB(LocalBO):
    """LA-MinUCB (MinUCB paper Algorithm 2).

    Options:
        beta: UCB weight on ``sigma`` (default 3, the paper's experiments), ``> 0``.
        b: look-ahead points per iteration (line 3; default ``ceil(d / 5)``; the paper keeps
            it fixed per experiment without stating it).
        num_fantasies: ``F``, fantasy samples of ``y_Z`` (default 16).
        delta: half-width of the box ``x_t +- delta`` in which the look-ahead points and
            the fantasy minimizers are optimized (default 0.2, GIBO's sampling box; the
            reference code of GIBO/MPD, on which the paper's is built, bounds every
            acquisition this way); unbounded, the look-ahead points can wander far from the
            data, as those of the knowledge gradient do.
        maxiter: L-BFGS-B iterations of the one-shot optimization (default 50; the
            dominant cost of an iteration).
        lookahead_region: where the look-ahead points and fantasy minimizers are
            optimized: ``"local"`` (default), the box ``x_t +- delta``; ``"cube"``, the whole
            unit cube, the region the UCB move itself ranges over.
        fit_ftol: as in :class:`~isoline.methods.local.LocalBO` (the overhead benchmark
            runs it at ``1e-6``).
        See :class:`~isoline.methods.local.LocalBO` for the GP options.

    Typed spaces: the method's theory is continuous, so it searches the relaxed encoding;
    :meth:`~isoline.methods.base.Method.ask` rounds each point to its configuration.
    """

    name = "la-minucb"
    summary = "MinUCB with look-ahead"
    paper = "Fan et al., NeurIPS 2024 (LA-MinUCB, Algorithm 2)"

    def __init__(
        self,
        dim: int,
        *,
        beta: float = 3.0,
        b: int | None = None,
        num_fantasies: int = 16,
        delta: float = 0.2,
        maxiter: int = 50,
        lookahead_region: str = "local",
        **options: Any,
    ) -> None:
        self.lookahead_region = check_choice(
            lookahead_region, "lookahead_region", LOOKAHEAD_REGIONS
        )
        super().__init__(dim, **options)
        self.beta = check_positive(beta, "beta")
        self.b = check_int(math.ceil(dim / 5) if b is None else b, "b", 1)
        self.num_fantasies = check_int(num_fantasies, "num_fantasies", 1)
        self.delta = check_float(delta, "delta", 0.0, 1.0, low_open=True)
        self.maxiter = check_int(maxiter, "maxiter", 1)
        self._next = "lookahead"
        self.last_value = float("nan")

    # -- phases ----------------------------------------------------------------------------
    def _advance(self) -> list[np.ndarray]:
        q = self.batch_size
        if self.center is None:
            self.center, evaluated = self._start()
            self._next = "lookahead"
            if not evaluated:
                return [self.center.copy()]
        if self._next == "lookahead":  # line 3
            self._next = "move"
            return self._lookahead(int(math.ceil(self.b / q) * q), [])
        gp = self._fit()  # lines 6-8: the UCB move, evaluated
        if gp is None:  # every evaluation failed so far: jump to a random point
            self.center = self.rng.random(self.dim)
        else:
            self.center = minimize_ucb(
                gp, self.beta, self._anchors(gp), self.delta, self._seed(), self.num_restarts,
                self.raw_samples,
            )  # fmt: skip
        self.iteration += 1
        if q == 1:
            self._next = "lookahead"
            return [self.center.copy()]
        n = int(math.ceil((self.b + 1) / q) * q) - 1
        return [self.center.copy()] + self._lookahead(n, [self.center])

    def _extend(self, k: int) -> list[np.ndarray]:
        return self._lookahead(k, self._untold())

    def _region(self) -> np.ndarray:
        """``(2, d)`` box of the look-ahead optimization (see ``lookahead_region``)."""
        if self.lookahead_region == "cube":
            return np.stack([np.zeros(self.dim), np.ones(self.dim)])
        return box_around(self.x_t, self.delta)

    def _lookahead(self, n: int, pending: list[np.ndarray]) -> list[np.ndarray]:
        """``n`` look-ahead points (line 3) with ``pending`` points' values fantasized."""
        gp = self._fit()
        F, d = self.num_fantasies, self.dim
        region = self._region()
        if gp is None:  # no finite value yet: space-filling points in the region
            return list(sobol_box(n, region, self._seed()))
        m = n + len(pending)
        with self.torch_rng() as seed:
            eps = cast(torch.Tensor, NormalQMCEngine(m, seed=seed).draw(F, dtype=DTYPE))
            Xp = torch.as_tensor(np.array(pending), dtype=DTYPE) if pending else None
            acqf = LookaheadUCB(gp.model, self.beta, eps, gp.noise, Xp)
            # raw one-shot candidates: Z from Sobol in the region, fantasies at x_t
            R = max(self.raw_samples, self.num_restarts)
            Zr = sobol_box(R * n, region, seed).reshape(R, n, d)
            raw = np.concatenate([Zr, np.broadcast_to(self.x_t, (R, F, d))], axis=1)
            with torch.no_grad():
                vals = acqf(torch.as_tensor(raw)).numpy()
            top = np.argsort(-np.where(np.isfinite(vals), vals, -np.inf), kind="stable")
            X, self.last_value = maximize(
                acqf,
                d,
                n + F,
                bounds=region,
                initial_conditions=raw[top[: self.num_restarts]],
                options={"maxiter": self.maxiter},
            )
        return list(np.clip(X[:n], 0.0, 1.0))
