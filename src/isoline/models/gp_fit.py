"""Building and fitting the BoTorch ``SingleTaskGP`` behind every isoline GP.

:func:`build_model` makes the model of one output, or of several outputs of the same
evaluations as a batch of independent GPs (one per output, each with its own
hyperparameters), with the kernels, likelihoods and priors of
:mod:`isoline.models.kernels` on outputs standardized per column (BoTorch's
``Standardize``). :func:`fit_model` maximizes the marginal likelihood (for a batch, each
output's on its own: BoTorch runs one L-BFGS-B per batch member) and falls back to the
starting hyperparameters when the fit fails. :func:`isoline.models.gp.fit_gp` and
:func:`isoline.models.outputs.fit_gps` are the public entries.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

import numpy as np
import torch
from botorch.exceptions.errors import ModelFittingError
from botorch.fit import fit_gpytorch_mll
from botorch.models import SingleTaskGP
from botorch.models.transforms.input import InputTransform
from botorch.models.transforms.outcome import Standardize
from gpytorch.means import ConstantMean, ZeroMean
from gpytorch.mlls import ExactMarginalLogLikelihood
from linear_operator.utils.errors import NanError, NotPSDError

from isoline.models.arc import arc_kernel
from isoline.models.kernels import house_kernel, house_likelihood, optuna_kernel, optuna_likelihood
from isoline.models.linalg import GPFitError
from isoline.params import Space
from isoline.validation import check_positive

__all__ = ["DTYPE", "KERNELS", "MEANS", "PRIORS", "build_model", "check_data", "fit_model"]

#: kernel names accepted by ``kernel=``
KERNELS = ("matern52", "rbf")
#: prior-mean names accepted by ``mean=``
MEANS = ("constant", "zero")
#: hyperparameter-prior sets accepted by ``priors=``
PRIORS = ("botorch", "optuna")

DTYPE = torch.float64
T = TypeVar("T")


def check_data(X: np.ndarray, Y: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
    """``X (n, d)`` and ``Y (n, m)`` as float64 tensors, or a clear error."""
    Xa = np.asarray(X, dtype=float)
    Ya = np.asarray(Y, dtype=float)
    if Xa.ndim != 2 or Xa.shape[0] == 0 or Xa.shape[1] == 0:
        raise ValueError(f"X must be a non-empty (n, d) array, got shape {Xa.shape}")
    if Xa.shape[0] != Ya.shape[0]:
        raise ValueError(f"X has {Xa.shape[0]} rows but y has {Ya.shape[0]} values")
    if not (np.all(np.isfinite(Xa)) and np.all(np.isfinite(Ya))):
        raise ValueError("X and y must be finite (drop or impute failed evaluations first)")
    return torch.as_tensor(Xa, dtype=DTYPE), torch.as_tensor(Ya, dtype=DTYPE)


def _min_stdv(y: torch.Tensor) -> float:
    """Spread below which ``y`` counts as constant: relative to its magnitude."""
    return max(1e-14 * float(y.abs().max()), 1e-300)


def _load_init(model: SingleTaskGP, init: Mapping[str, np.ndarray]) -> None:
    """Copy matching free raw parameters from ``init`` (a :meth:`GP.state`)."""
    if not isinstance(init, Mapping):
        raise TypeError(
            f"init must be a mapping from GP.state() or None, got {type(init).__name__}"
        )
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.requires_grad and name in init:
                v = torch.as_tensor(np.asarray(init[name]), dtype=DTYPE)
                if v.shape == p.shape and torch.isfinite(v).all():
                    p.copy_(v)


def build_model(
    Xt: torch.Tensor,
    Yt: torch.Tensor,
    kernel: str,
    mean: str,
    input_transform: InputTransform | None,
    log_params: bool,
    priors: str,
    arc: Space | None,
    noise: float | None = None,
    lengthscale: float | Sequence[float] | np.ndarray | None = None,
    fixed_outputscale: bool = False,
) -> SingleTaskGP:
    """The unfitted ``SingleTaskGP`` of ``Yt (n, m)``: one GP, or for ``m > 1`` a batch of
    independent GPs, one per column, each with its own hyperparameters and priors."""
    if kernel not in KERNELS:
        raise ValueError(f"kernel must be one of {KERNELS}, got {kernel!r}")
    if mean not in MEANS:
        raise ValueError(f"mean must be one of {MEANS}, got {mean!r}")
    m, d = Yt.shape[-1], Xt.shape[-1]
    batch = torch.Size([m]) if m > 1 else torch.Size()
    if priors == "optuna":
        covar = optuna_kernel(kernel, d, batch)
        likelihood = optuna_likelihood(batch) if noise is None else house_likelihood(noise)
    else:
        covar = house_kernel(kernel, d, lengthscale, fixed_outputscale, log_params, batch)
        likelihood = house_likelihood(noise, log_params, batch)
    if arc is not None:
        covar = arc_kernel(covar, arc, kernel)
    return SingleTaskGP(
        Xt,
        Yt,
        likelihood=likelihood,
        covar_module=covar,
        mean_module=ConstantMean(batch_shape=batch) if mean == "constant" else ZeroMean(batch),
        outcome_transform=Standardize(m=m, min_stdv=min(_min_stdv(y) for y in Yt.T)),
        input_transform=input_transform,
    ).to(DTYPE)


def fit_model(
    model: SingleTaskGP,
    fit: bool,
    init: Mapping[str, np.ndarray] | None,
    ftol: float | None,
    wrap: Callable[[SingleTaskGP], T],
) -> T:
    """``wrap(model)`` after maximizing its marginal likelihood from ``init`` (for a batch
    of outputs, each output's own). A failed fit, or a fitted model ``wrap`` cannot use (it raises),
    falls back to the starting hyperparameters."""
    if not isinstance(fit, bool):
        raise TypeError(f"fit must be True or False, got {fit!r}")
    options: dict[str, float | None] = {}
    if ftol is not None:
        options["ftol"] = check_positive(ftol, "ftol")
        if model.num_outputs > 1:  # BoTorch's batched L-BFGS-B takes ftol or its factr
            options["factr"] = None
    solver = {"options": options} if options else {}
    if init is not None:
        _load_init(model, init)
    start = {k: v.clone() for k, v in model.state_dict().items()}
    if fit and any(p.requires_grad for p in model.parameters()):
        mll = ExactMarginalLogLikelihood(model.likelihood, model)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # retries are handled by botorch
                fit_gpytorch_mll(mll, optimizer_kwargs=solver)
        except (ModelFittingError, NotPSDError, NanError, RuntimeError) as err:
            model.load_state_dict(start)
            warnings.warn(
                f"GP hyperparameter fit failed ({err}); using the starting hyperparameters",
                RuntimeWarning,
                stacklevel=4,
            )
    try:
        return wrap(model)
    except (GPFitError, NotPSDError, NanError) as err:
        if not fit:
            raise GPFitError(f"the GP's training covariance is not usable: {err}") from err
        model.load_state_dict(start)
        return wrap(model)
