"""GP-UCB-PE: a UCB point, then pure exploration (Contal, Buffoni, Robicquet & Vayatis 2013).

Contal et al., "Parallel Gaussian process optimization with upper confidence bound and pure
exploration", ECML-PKDD 2013, Algorithm 1, written for maximization of ``f``:

1. ``x^0 = argmax mu(x) + sqrt(beta_t) sigma(x)`` (GP-UCB);
2. ``y* = max_x mu(x) - sqrt(beta_t) sigma(x)`` (best lower confidence bound) and the
   relevant region ``R+ = {x : mu(x) + c sqrt(beta_t) sigma(x) >= y*}``, ``c = 2``
   (``region_width``);
3. ``x^k = argmax_{x in R+} sigma^(k)(x)`` for ``k = 1..K-1``, where ``sigma^(k)`` is the
   posterior deviation after adding ``x^0..x^{k-1}`` (it does not depend on their values).

isoline minimizes ``y = -f``: the UCB point minimizes ``m - sqrt(beta) s``, ``y*`` becomes
``u* = min_x m + sqrt(beta) s`` and ``R+ = {x : m - c sqrt(beta) s <= u*}``. Step 3 is
optimized with the region as a penalty: ``sigma^(k)(x)`` inside ``R+`` (>= 0), the
negative distance ``u* - (m - c sqrt(beta) s)`` outside, so any maximizer lies in ``R+``
(which holds ``x^0``, hence is never empty).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch
from botorch.acquisition import AcquisitionFunction
from botorch.models.model import Model

from isoline.acquisition import gaussian_posterior
from isoline.methods.bkop import KernelBatchMethod
from isoline.methods.gp_bucb import HallucinatedUCB
from isoline.methods.registry import register
from isoline.methods.ucb import UCBWeight
from isoline.models.gp import GP
from isoline.validation import check_positive

__all__ = ["GPUCBPE", "LowerBound", "RegionExploration"]


class LowerBound(AcquisitionFunction):
    """``-(mu(x) + sqrt(beta) sigma(x))``: maximizing it finds ``u* = min UCB`` of ``y``."""

    def __init__(self, model: Model, beta: float) -> None:
        super().__init__(model)
        self.sqrt_beta = math.sqrt(beta)

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        post = gaussian_posterior(self.model, X)
        mean = post.mean.reshape(X.shape[:-2])
        sd = post.variance.reshape(X.shape[:-2]).clamp_min(0.0).sqrt()
        return -(mean + self.sqrt_beta * sd)


class RegionExploration(AcquisitionFunction):
    """Pure exploration in ``R+``: ``sigma_var(x)`` inside, a negative penalty outside.

    ``model`` gives the region (real data), ``var_model`` the deviation (real data and
    the batch points chosen so far). ``X`` ``(b, 1, d)`` -> ``(b,)``.
    """

    def __init__(
        self, model: Model, var_model: Model, beta: float, u_star: float, width: float
    ) -> None:
        super().__init__(model)
        self.var_model = var_model
        self.c = width * math.sqrt(beta)
        self.u_star = float(u_star)

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        post = gaussian_posterior(self.model, X)
        mean = post.mean.reshape(X.shape[:-2])
        sd = post.variance.reshape(X.shape[:-2]).clamp_min(0.0).sqrt()
        gap = mean - self.c * sd - self.u_star  # <= 0 inside R+
        sd_k = (
            gaussian_posterior(self.var_model, X)
            .variance.reshape(X.shape[:-2])
            .clamp_min(0.0)
            .sqrt()
        )
        return torch.where(gap <= 0, sd_k, -gap)


@register
class GPUCBPE(UCBWeight, KernelBatchMethod):
    """GP-UCB-PE (Contal et al. 2013): one GP-UCB point, ``q - 1`` pure-exploration points.

    Options (and ``beta``, ``delta`` of :class:`~isoline.methods.ucb.UCBWeight`, with ``t`` =
    evaluations so far + 1):
        region_width: ``c`` in ``R+ = {x : mu + c sqrt(beta) sigma >= max LCB}`` (paper: 2).
        (and the options of :class:`isoline.methods.bkop.KernelBatchMethod`)
    """

    name = "gp-ucb-pe"
    summary = "GP-UCB point plus exploration"
    family = "batch GP-UCB"
    paper = "Contal, Buffoni, Robicquet & Vayatis, ECML-PKDD 2013 (GP-UCB-PE)"

    def __init__(
        self,
        dim: int,
        *,
        region_width: float = 2.0,
        **options: Any,
    ) -> None:
        super().__init__(dim, **options)
        self.region_width = check_positive(region_width, "region_width")

    def propose(self, q: int) -> np.ndarray:
        beta = self.beta_at(len(self.y) + 1)
        with self.torch_rng():
            gp = self.fit()
            x0, _ = self.optimize(HallucinatedUCB(gp.model, gp.model, beta), 1)
            chosen = [x0.reshape(-1)]
            if q > 1:
                X, _ = self.data()
                # u* = min_x UCB(x); observed points and x0 seed the search
                _, u_neg = self.optimize(LowerBound(gp.model, beta), 1, starts=np.vstack([X, x0]))
                u_star = -u_neg
                for _ in range(1, q):
                    P = np.array(chosen)
                    var_gp: GP = gp.condition_on(P, gp.posterior(P)[0])
                    acqf = RegionExploration(
                        gp.model, var_gp.model, beta, u_star, self.region_width
                    )
                    x, _ = self.optimize(acqf, 1, starts=x0[None])
                    chosen.append(x.reshape(-1))
        return np.array(chosen)
