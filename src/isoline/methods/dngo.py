"""DNGO: expected improvement under a Bayesian-linear-regression-on-features surrogate.

Snoek et al., "Scalable Bayesian optimization using deep neural networks", ICML 2015; run
as in the NeuralBO paper (§7) with pybnn's defaults (model: :mod:`isoline.models.dngo`).

Each iteration retrains the network from scratch (as pybnn does) on all observations,
fits ``alpha, beta`` by marginal likelihood, and maximizes expected improvement over the
best observed value with BoTorch (analytic LogEI for one point,
``qLogExpectedImprovement`` on the joint BLR posterior for a batch, its points chosen
greedily one at a time with the earlier ones pending; the shared
:func:`isoline.acquisition.maximize`: ``optimize_acqf`` with Sobol raw samples and L-BFGS-B
restarts, and no repeated points, which the network's linear extrapolation to a box corner
otherwise produces). isoline minimizes, so improvement is below ``min y``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from botorch.acquisition import AcquisitionFunction, qLogExpectedImprovement
from botorch.acquisition.logei import TAU_MAX, TAU_RELU

from isoline.acquisition import RelativeFloorLogEI, maximize, negated, y_unit
from isoline.methods.base import Method
from isoline.methods.network import torch_generator
from isoline.methods.registry import register
from isoline.models.dngo import DNGO
from isoline.validation import check_int, check_positive

__all__ = ["DNGOMethod"]


@register
class DNGOMethod(Method):
    """DNGO with expected improvement; see the module docstring.

    Options (pybnn defaults):
        units: hidden widths (50, 50, 50).
        epochs: Adam epochs per fit (500).
        train_batch_size: minibatch size (10).
        lr: Adam step size (0.01).
        num_restarts, raw_samples: ``optimize_acqf`` settings (10, 512).
    """

    name = "dngo"
    summary = "network basis, Bayesian EI (DNGO)"
    family = "neural"
    paper = "Snoek et al., ICML 2015 (DNGO); pybnn defaults; NeuralBO paper §7"

    def __init__(
        self,
        dim: int,
        *,
        units: tuple[int, ...] = (50, 50, 50),
        epochs: int = 500,
        train_batch_size: int = 10,
        lr: float = 0.01,
        num_restarts: int = 10,
        raw_samples: int = 512,
        **common: Any,
    ) -> None:
        if isinstance(units, (str, bytes)) or not hasattr(units, "__len__") or len(units) == 0:
            raise TypeError(f"units must be a non-empty sequence of widths >= 1, got {units!r}")
        self.units = tuple(check_int(u, "units", 1) for u in units)
        self.epochs = check_int(epochs, "epochs", 1)
        self.train_batch_size = check_int(train_batch_size, "train_batch_size", 1)
        self.lr = check_positive(lr, "lr")
        self.num_restarts = check_int(num_restarts, "num_restarts", 1)
        self.raw_samples = check_int(raw_samples, "raw_samples", 1)
        super().__init__(dim, **common)

    def propose(self, q: int) -> np.ndarray:
        X, y = self.data()
        model = DNGO(
            X,
            y,
            units=self.units,
            epochs=self.epochs,
            batch_size=self.train_batch_size,
            lr=self.lr,
            generator=torch_generator(self.rng),
        )
        best = float(np.min(y))
        acq: AcquisitionFunction
        if q == 1:
            acq = RelativeFloorLogEI(model, best_f=best, maximize=False)
        else:
            unit = y_unit(model)  # LogEI's smoothing widths are absolute
            acq = qLogExpectedImprovement(
                model,
                best_f=-best,
                tau_max=TAU_MAX * unit,
                tau_relu=TAU_RELU * unit,
                posterior_transform=negated(),
            )
        with self.torch_rng():
            X, _ = maximize(
                acq, self.dim, q, num_restarts=self.num_restarts, raw_samples=self.raw_samples,
                sequential=True,
            )  # fmt: skip
        return X
