"""Bull's non-adaptive batch strategy, the §9 comparison of the BKOP paper.

Bull, "Convergence rates of efficient global optimization algorithms", JMLR 2011, §3: the
minimax rate is attained by a strategy that fixes all query points but one in advance, a
quasi-uniform design chosen without looking at ``f``, and spends the last one on the
minimizer of the kernel interpolant ``f_hat`` (the GP posterior mean). The BKOP paper (§2,
§9, Figure 4) runs it as a batch method: "all the query points except one being fixed at
the beginning".

Our reading as a batch method: the design is one scrambled Sobol sequence (scipy.stats.qmc,
seed ``seed``) fixed when the method is created and handed out in order after the initial
design; in every period of ``period`` points (default: the batch size, at least 2) the last
one is ``argmin_x m(x)``, the posterior mean given all data (isoline minimizes). So a full
batch is ``q - 1`` design points and one exploitation point.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from botorch.acquisition import AcquisitionFunction
from botorch.models.model import Model

from isoline.acquisition import gaussian_posterior
from isoline.designs import sobol
from isoline.methods.bkop import KernelBatchMethod
from isoline.methods.registry import register
from isoline.validation import check_int

__all__ = ["Bull", "NegativeMean"]


class NegativeMean(AcquisitionFunction):
    """``-m(x)`` (maximized): its argmax is the minimizer of the interpolant. ``(b, 1, d) -> (b,)``."""

    def __init__(self, model: Model) -> None:
        super().__init__(model)

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        return -gaussian_posterior(self.model, X).mean.reshape(X.shape[:-2])


@register
class Bull(KernelBatchMethod):
    """Bull (2011) non-adaptive batch: fixed Sobol design points plus one mean minimizer per period.

    Options:
        period: one point in every ``period`` is the posterior-mean minimizer, the others
            are the fixed design; ``None`` uses ``max(batch_size, 2)``.
        (and the options of :class:`isoline.methods.bkop.KernelBatchMethod`)
    """

    name = "bull"
    summary = "fixed design plus mean minimizers"
    family = "batch kernel BO"
    paper = "Bull, JMLR 2011 (non-adaptive strategy, §3); BKOP paper §9"

    def __init__(
        self,
        dim: int,
        *,
        period: int | None = None,
        **options: Any,
    ) -> None:
        super().__init__(dim, **options)
        if period is None:
            period = max(self.batch_size, 2)
        self.period = check_int(period, "period", 2)
        self._n_proposed = 0  # points proposed after the initial design
        self._n_design = 0  # fixed design points handed out so far

    def propose(self, q: int) -> np.ndarray:
        slots = self._n_proposed + np.arange(q)
        exploit = (slots + 1) % self.period == 0
        if exploit.sum() > 1:  # q > period: one mean minimizer per call, no repeated points
            exploit[np.flatnonzero(exploit)[1:]] = False
        k = int((~exploit).sum())
        X = np.empty((q, self.dim))
        X[~exploit] = sobol(self._n_design + k, self.dim, seed=self.seed)[self._n_design :]
        if exploit.any():
            with self.torch_rng():
                x, _ = self.optimize(NegativeMean(self.fit().model), 1, starts=self.data()[0])
            X[exploit] = x.reshape(-1)
        self._n_proposed += q
        self._n_design += k
        return X
