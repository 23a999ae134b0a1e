"""GP-BUCB: batch UCB with hallucinated observations (Desautels, Krause & Burdick, JMLR 2014).

The batch is built point by point (Desautels et al. 2014, Algorithm 1, "GP-BUCB"): the
``k``-th point maximizes ``mu_fb(x) + sqrt(beta_t) sigma_{t-1}(x)``, where ``mu_fb`` is the
posterior mean given the real observations only (fixed during the batch) and
``sigma_{t-1}`` is conditioned on the real observations *and* the ``k - 1`` points
already chosen in the batch, whose outcomes are hallucinated as the posterior mean
(:meth:`isoline.models.gp.GP.condition_on`): the mean is unchanged, the variance shrinks.

isoline minimizes, so on ``y = -f`` the rule is ``argmin mu(x) - sqrt(beta_t) sigma(x)``.
It is a baseline of the BKOP paper (§10, Figures 1 and 5). The GP, the setting and the
acquisition optimizer (gradient by default, or CMA-ES as the paper) are shared with
:class:`isoline.methods.bkop.KernelBatchMethod`, so comparisons use the same machinery.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from botorch.acquisition import AcquisitionFunction
from botorch.models.model import Model

from isoline.acquisition import gaussian_posterior
from isoline.methods.bkop import KernelBatchMethod
from isoline.methods.registry import register
from isoline.methods.ucb import UCBWeight
from isoline.models.gp import GP

__all__ = ["GPBUCB", "HallucinatedUCB"]


class HallucinatedUCB(AcquisitionFunction):
    """``-mu(x) + sqrt(beta) sigma(x)`` with ``mu`` and ``sigma`` from two models.

    ``mean_model`` gives the mean (real data only), ``var_model`` the standard deviation
    (real and hallucinated data). ``X`` ``(b, 1, d)`` -> ``(b,)`` (BoTorch maximizes).
    """

    def __init__(self, mean_model: Model, var_model: Model, beta: float) -> None:
        super().__init__(mean_model)
        self.var_model = var_model
        self.sqrt_beta = math.sqrt(beta)

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        mean = gaussian_posterior(self.model, X).mean.reshape(X.shape[:-2])
        var = gaussian_posterior(self.var_model, X).variance.reshape(X.shape[:-2])
        return -mean + self.sqrt_beta * var.clamp_min(0.0).sqrt()


@register
class GPBUCB(UCBWeight, KernelBatchMethod):
    """GP-BUCB (Desautels et al. 2014): UCB points chosen one by one, variance hallucinated.

    Options: ``beta`` and ``delta`` of :class:`~isoline.methods.ucb.UCBWeight`, with ``t`` =
    the index of the point being chosen (Desautels et al. inflate ``beta_t`` by ``exp(2C)``
    for their bound; like their experiments isoline uses the plain schedule), and the
    options of :class:`~isoline.methods.bkop.KernelBatchMethod`.
    """

    name = "gp-bucb"
    summary = "GP-UCB batch, hallucinated variance"
    family = "batch GP-UCB"
    paper = "Desautels, Krause & Burdick, JMLR 2014 (GP-BUCB)"

    def propose(self, q: int) -> np.ndarray:
        t0 = len(self.y)
        chosen: list[np.ndarray] = []
        with self.torch_rng():
            gp = self.fit()
            var_gp: GP = gp
            for k in range(q):
                if chosen:
                    P = np.array(chosen)
                    var_gp = gp.condition_on(P, gp.posterior(P)[0])
                beta = self.beta_at(t0 + k + 1)
                x, _ = self.optimize(HallucinatedUCB(gp.model, var_gp.model, beta), 1)
                chosen.append(x.reshape(-1))
        return np.array(chosen)
