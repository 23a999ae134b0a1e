"""Kernels, likelihoods and priors of isoline's GPs (:mod:`isoline.models.gp`).

Two prior sets, each for one output or a batch of independent outputs (``batch_shape``,
one GP per output of the same evaluations; see :func:`isoline.models.outputs.fit_gps`):

* ``"botorch"``: BoTorch's defaults, a dimension-scaled log-normal prior on the ARD
  lengthscales and a log-normal prior on the noise variance (Hvarfner, Hellsten & Nardi,
  "Vanilla Bayesian optimization performs great in high dimensions", ICML 2024), no
  learned signal variance; optionally searched in log space (:func:`log_transform`).
* ``"optuna"``: the priors of Optuna's ``GPSampler`` (Optuna 4-5, ``optuna._gp.prior``):
  a learned signal variance with a Gamma(2, 1) prior, a noise variance above 1e-6 with a
  Gamma(1.1, 30) prior, and :class:`InverseSquaredLengthscalePrior` on the lengthscales,
  all in standardized units.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import numpy as np
import torch
from botorch.models.utils.gpytorch_modules import (
    get_covar_module_with_dim_scaled_prior,
    get_gaussian_likelihood_with_lognormal_prior,
)
from gpytorch.constraints import GreaterThan, Positive
from gpytorch.kernels import Kernel, MaternKernel, RBFKernel, ScaleKernel
from gpytorch.likelihoods import GaussianLikelihood
from gpytorch.module import Module as GPyTorchModule
from gpytorch.priors import GammaPrior, Prior
from torch.nn import Module

from isoline.validation import check_positive_vector

__all__ = [
    "InverseSquaredLengthscalePrior",
    "MIN_FIXED_NOISE",
    "ard_kernel",
    "house_kernel",
    "house_likelihood",
    "log_transform",
    "optuna_kernel",
    "optuna_likelihood",
]

DTYPE = torch.float64
#: smallest fixed noise variance used, in standardized units (keeps K invertible)
MIN_FIXED_NOISE = 1e-8
#: no batch: one output
ONE = torch.Size()


def ard_kernel(kernel: str, d: int, **kw: Any) -> Kernel:
    """An ARD RBF or Matern-5/2 kernel over ``d`` columns (``kw``: GPyTorch's arguments)."""
    if kernel == "rbf":
        return RBFKernel(ard_num_dims=d, **kw)
    return MaternKernel(nu=2.5, ard_num_dims=d, **kw)


def house_kernel(
    kernel: str,
    d: int,
    lengthscale: float | Sequence[float] | np.ndarray | None,
    fixed_outputscale: bool,
    log_params: bool = False,
    batch_shape: torch.Size = ONE,
) -> Kernel:
    """The ``"botorch"`` prior set's kernel: learned lengthscales (``lengthscale=None``)
    under BoTorch's prior, or fixed ones; a ``ScaleKernel`` around it when the signal
    variance is fixed (its value is set by the caller after standardizing)."""
    if lengthscale is None:
        base = get_covar_module_with_dim_scaled_prior(
            ard_num_dims=d, batch_shape=batch_shape, use_rbf_kernel=kernel == "rbf"
        )
        if log_params:
            log_transform(base, "raw_lengthscale")
    else:
        ls = check_positive_vector(lengthscale, "lengthscale", d)
        base = ard_kernel(kernel, d, lengthscale_constraint=Positive(), batch_shape=batch_shape).to(
            DTYPE
        )
        base.lengthscale = torch.as_tensor(ls, dtype=DTYPE).reshape(1, d)
        base.raw_lengthscale.requires_grad_(False)
    if not fixed_outputscale:
        return base
    k = ScaleKernel(base, outputscale_constraint=Positive(), batch_shape=batch_shape)
    k.raw_outputscale.requires_grad_(False)
    return k


def house_likelihood(
    noise: float | None, log_params: bool = False, batch_shape: torch.Size = ONE
) -> GaussianLikelihood:
    """The ``"botorch"`` prior set's likelihood: learned noise (``noise=None``) under
    BoTorch's prior, or a fixed noise whose value the caller sets after standardizing."""
    if noise is None:
        lik = get_gaussian_likelihood_with_lognormal_prior(batch_shape=batch_shape)
        if log_params:
            log_transform(lik.noise_covar, "raw_noise")
        return lik
    lik = GaussianLikelihood(
        noise_constraint=GreaterThan(MIN_FIXED_NOISE / 2, transform=None),
        batch_shape=batch_shape,
    )
    lik.noise_covar.raw_noise.requires_grad_(False)
    return lik


class InverseSquaredLengthscalePrior(Prior):
    """Optuna GPSampler's prior on a lengthscale ``l``, stated on ``lam = l^-2``:
    ``log p = -(a / lam + a lam)`` up to a constant (``a = 0.1``), largest at ``l = 1``.
    Like Optuna it is added to the marginal likelihood as is (no change-of-variables term).
    """

    support = torch.distributions.constraints.positive
    arg_constraints: dict[str, torch.distributions.constraints.Constraint] = {}

    def __init__(self, a: float = 0.1) -> None:
        Module.__init__(self)
        torch.distributions.Distribution.__init__(self, validate_args=False)
        self.a = a
        self._transform = None

    def log_prob(self, x: torch.Tensor) -> torch.Tensor:
        lam = x.pow(-2)
        return -(self.a / lam + self.a * lam)


def optuna_kernel(kernel: str, d: int, batch_shape: torch.Size = ONE) -> Kernel:
    """ARD kernel with a learned signal variance under Optuna GPSampler's priors, started
    at unit lengthscales and signal variance."""
    base = ard_kernel(
        kernel, d, lengthscale_prior=InverseSquaredLengthscalePrior(),
        lengthscale_constraint=Positive(), batch_shape=batch_shape,
    )  # fmt: skip
    k = ScaleKernel(
        base, outputscale_prior=GammaPrior(2.0, 1.0), outputscale_constraint=Positive(),
        batch_shape=batch_shape,
    )  # fmt: skip
    with torch.no_grad():
        base.lengthscale = torch.ones(*batch_shape, 1, d)
        k.outputscale = torch.ones(batch_shape)
    return k.to(DTYPE)


def optuna_likelihood(batch_shape: torch.Size = ONE) -> GaussianLikelihood:
    """Gaussian noise above 1e-6 with Optuna GPSampler's Gamma(1.1, 30) prior, started at
    the prior's mode."""
    lik = GaussianLikelihood(
        noise_prior=GammaPrior(1.1, 30.0), noise_constraint=GreaterThan(1e-6),
        batch_shape=batch_shape,
    )  # fmt: skip
    with torch.no_grad():
        lik.noise = torch.full((*batch_shape, 1), 0.1 / 30.0)
    return lik.to(DTYPE)


def log_transform(module: GPyTorchModule, raw_name: str) -> None:
    """Re-register ``module``'s ``GreaterThan`` constraint on ``raw_name`` with an exp
    transform, keeping its lower bound and the parameter's current (prior-mode) value."""
    old = cast(GreaterThan, module.constraint_for_parameter_name(raw_name))
    value = old.transform(getattr(module, raw_name).detach())
    new = GreaterThan(old.lower_bound, transform=torch.exp, inv_transform=torch.log)
    module.register_constraint(raw_name, new)
    with torch.no_grad():
        getattr(module, raw_name).copy_(new.inverse_transform(value))
