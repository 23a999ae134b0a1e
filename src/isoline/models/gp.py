"""Exact GP regression on unit-cube inputs, built on BoTorch's ``SingleTaskGP``.

Every GP-based method in isoline fits its surrogate through :func:`fit_gp`. The model is
a zero/constant-mean GP with an ARD RBF or Matern-5/2 kernel on standardized outputs
(BoTorch's ``Standardize`` outcome transform), in float64. Hyperparameters are learned by
maximizing the marginal likelihood with ``fit_gpytorch_mll`` under BoTorch's default
priors (dimension-scaled log-normal lengthscale prior and log-normal noise prior of
Hvarfner et al. 2024, "Vanilla Bayesian optimization performs great in high dimensions"),
or fixed by the caller, as the local-BO papers do (GIBO, Mueller et al. 2021, §4.1; MPD,
Nguyen et al. 2022; MinUCB, DESIGN.md §4.3).

Units: the wrapper :class:`GP` answers in the units of ``y``. Fixed hyperparameters are
given in those units too (``noise`` and ``outputscale`` are variances of ``y``); they are
divided by the standardization variance internally.

The gradient posterior (:meth:`GP.gradient_posterior`) is the joint Gaussian of
``grad f(x)`` given the data, from the kernel's derivatives (Rasmussen & Williams 2006,
§9.4): mean ``dk(x, X)/dx^T alpha`` and covariance
``d^2k(x, x')/dx dx'|_{x'=x} - dk(x, X)/dx^T K^-1 dk(X, x)/dx``.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any, cast

import numpy as np
import torch
from botorch.exceptions.errors import ModelFittingError
from botorch.fit import fit_gpytorch_mll
from botorch.models import SingleTaskGP
from botorch.models.transforms.input import InputTransform
from botorch.models.transforms.outcome import Standardize
from botorch.models.utils.gpytorch_modules import (
    get_covar_module_with_dim_scaled_prior,
    get_gaussian_likelihood_with_lognormal_prior,
)
from gpytorch.constraints import GreaterThan, Positive
from gpytorch.kernels import Kernel, MaternKernel, RBFKernel, ScaleKernel
from gpytorch.likelihoods import GaussianLikelihood
from gpytorch.means import ConstantMean, ZeroMean
from gpytorch.mlls import ExactMarginalLogLikelihood
from gpytorch.module import Module as GPyTorchModule
from gpytorch.priors import GammaPrior, Prior
from gpytorch.utils.warnings import NumericalWarning
from linear_operator.utils.errors import NanError, NotPSDError
from torch.nn import Module

from isoline.models.arc import arc_kernel
from isoline.models.derivatives import CURVATURE, outcome_scale
from isoline.models.linalg import GPFitError, cholesky
from isoline.params import Space
from isoline.validation import (
    check_bool,
    check_choice,
    check_float,
    check_positive,
    check_positive_vector,
)

__all__ = [
    "GP",
    "GPFitError",
    "InverseSquaredLengthscalePrior",
    "KERNELS",
    "MEANS",
    "PRIORS",
    "fit_gp",
]

#: kernel names accepted by ``kernel=``
KERNELS = ("matern52", "rbf")
#: prior-mean names accepted by ``mean=``
MEANS = ("constant", "zero")
#: hyperparameter-prior sets accepted by ``priors=``
PRIORS = ("botorch", "optuna")

DTYPE = torch.float64
#: smallest fixed noise variance used, in standardized units (keeps K invertible)
MIN_FIXED_NOISE = 1e-8


class GP:
    """A fitted GP (BoTorch model) with numpy helpers in the units of ``y``.

    Use :func:`fit_gp` to build one. ``model`` is the BoTorch ``SingleTaskGP`` (for
    acquisition functions); it predicts in ``y`` units.
    """

    def __init__(self, model: SingleTaskGP, kernel: str) -> None:
        self.model = model.eval()
        self.kernel = kernel
        self.dim = int(model.train_inputs[0].shape[-1])
        self._factorize()

    # -- hyperparameters -------------------------------------------------------------
    @property
    def _base_kernel(self) -> Kernel:
        k = self.model.covar_module
        return k.base_kernel if isinstance(k, ScaleKernel) else k

    @property
    def y_scale(self) -> float:
        """Standard deviation used to standardize ``y``."""
        return outcome_scale(self.model)

    @property
    def lengthscales(self) -> np.ndarray:
        """``(d,)`` ARD lengthscales (unit-cube units)."""
        return self._base_kernel.lengthscale.detach().reshape(-1).numpy().copy()

    @property
    def outputscale(self) -> float:
        """Prior signal variance in ``y`` units."""
        return self._outputscale_std * self.y_scale**2

    @property
    def noise(self) -> float:
        """Observation noise variance in ``y`` units."""
        return float(self.model.likelihood.noise.detach().reshape(-1)[0]) * self.y_scale**2

    @property
    def _outputscale_std(self) -> float:
        k = self.model.covar_module
        return float(k.outputscale.detach()) if isinstance(k, ScaleKernel) else 1.0

    def state(self) -> dict[str, np.ndarray]:
        """Raw hyperparameters as numpy arrays (picklable; pass as ``fit_gp(init=...)``)."""
        return {n: p.detach().numpy().copy() for n, p in self.model.named_parameters()}

    # -- predictions -----------------------------------------------------------------
    def posterior(
        self, X: np.ndarray, observation_noise: bool = False
    ) -> tuple[np.ndarray, np.ndarray]:
        """Posterior mean ``(n,)`` and variance ``(n,)`` of ``f`` (or of ``y``) at ``X (n, d)``."""
        Xt = self._tensor(X)
        with torch.no_grad(), warnings.catch_warnings():
            # round-off can make variances at data points slightly negative; clamped below
            warnings.simplefilter("ignore", NumericalWarning)
            post = self.model.posterior(Xt, observation_noise=observation_noise)
            mean = post.mean.reshape(-1).numpy().copy()
            var = post.variance.reshape(-1).clamp_min(0.0).numpy().copy()
        return mean, var

    def covariance(self, X: np.ndarray) -> np.ndarray:
        """``(n, n)`` posterior covariance of ``f`` at ``X (n, d)``."""
        Xt = self._tensor(X)
        with torch.no_grad():
            post: Any = self.model.posterior(Xt)
            cov = post.distribution.covariance_matrix.numpy().copy()
        return 0.5 * (cov + cov.T)

    def gradient_posterior(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Joint posterior of ``grad f(x)``: mean ``(d,)`` and covariance ``(d, d)``.

        ``x`` is one point ``(d,)``. Cross-covariance derivatives come from torch autograd
        through the kernel; the prior term ``d^2 k(x, x') / dx dx'`` at ``x = x'`` is
        ``c * outputscale / l_i^2`` on the diagonal (c = 1 RBF, 5/3 Matern-5/2).
        """
        if not isinstance(self._base_kernel, MaternKernel | RBFKernel):
            kind = type(self._base_kernel).__name__
            raise ValueError(f"gradient_posterior needs the stationary ARD kernel, not {kind}")
        xt = self._tensor(x).reshape(-1)
        if xt.shape[0] != self.dim:
            raise ValueError(f"x must have shape ({self.dim},), got {tuple(np.shape(x))}")
        Xtr = self.model.train_inputs[0]
        kern = self.model.covar_module

        def cross(z: torch.Tensor) -> torch.Tensor:  # (n,) = k(z, X)
            return kern(z.unsqueeze(0), Xtr).to_dense().reshape(-1)

        with torch.enable_grad():
            J = torch.autograd.functional.jacobian(cross, xt)  # (n, d)
        J = J.detach()
        s = self.y_scale
        grad_mean = (J.T @ self._alpha) * s
        V = torch.linalg.solve_triangular(self._L, J, upper=False)  # (n, d)
        ls = self._base_kernel.lengthscale.detach().reshape(-1)
        prior = torch.diag(CURVATURE[self.kernel] * self._outputscale_std / ls**2)
        cov = (prior - V.T @ V) * s**2
        cov = 0.5 * (cov + cov.T)
        return grad_mean.numpy().copy(), cov.numpy().copy()

    def condition_on(self, X: np.ndarray, y: np.ndarray) -> GP:
        """A new GP conditioned on extra observations, hyperparameters unchanged.

        ``X (m, d)``, ``y (m,)`` in ``y`` units. For hallucinated observations (GP-BUCB)
        pass the posterior mean as ``y``: the mean stays, the covariance shrinks.
        """
        Xt = self._tensor(X)
        yt = torch.as_tensor(np.asarray(y, dtype=float), dtype=DTYPE).reshape(-1, 1)
        if yt.shape[0] != Xt.shape[0] or not torch.isfinite(yt).all():
            raise ValueError("condition_on needs finite y with one value per row of X")
        with torch.no_grad():
            self.model.posterior(Xt[:1])  # builds the prediction caches it needs
            new = self.model.condition_on_observations(Xt, yt)
        return GP(cast(SingleTaskGP, new), self.kernel)

    # -- internals -------------------------------------------------------------------
    def _tensor(self, X: np.ndarray | Sequence[float]) -> torch.Tensor:
        Xt = torch.as_tensor(np.asarray(X, dtype=float), dtype=DTYPE)
        if Xt.ndim == 1:
            Xt = Xt.unsqueeze(0)
        if Xt.ndim != 2 or Xt.shape[-1] != self.dim or not torch.isfinite(Xt).all():
            raise ValueError(
                f"X must be finite with {self.dim} columns, got shape {tuple(Xt.shape)}"
            )
        return Xt

    def _factorize(self) -> None:
        """Cholesky factor of the training covariance and ``alpha = K^-1 (y - m)``."""
        X = self.model.train_inputs[0]
        y = self.model.train_targets.reshape(-1)
        with torch.no_grad():
            K = self.model.covar_module(X).to_dense()
            K = K + self.model.likelihood.noise.reshape(-1)[0] * torch.eye(len(X), dtype=DTYPE)
            r = y - self.model.mean_module(X).reshape(-1)
            L = cholesky(K)
            alpha = torch.cholesky_solve(r.unsqueeze(-1), L).reshape(-1)
        if not torch.isfinite(alpha).all():
            raise GPFitError("GP training system gave non-finite weights")
        self._L, self._alpha = L, alpha


def fit_gp(
    X: np.ndarray,
    y: np.ndarray,
    *,
    kernel: str = "matern52",
    noise: float | None = None,
    lengthscale: float | Sequence[float] | np.ndarray | None = None,
    outputscale: float | None = None,
    mean: str = "constant",
    fit: bool = True,
    init: Mapping[str, np.ndarray] | None = None,
    input_transform: InputTransform | None = None,
    ftol: float | None = None,
    log_params: bool = False,
    priors: str = "botorch",
    arc: Space | None = None,
) -> GP:
    """Fit an exact GP to ``X (n, d)`` in ``[0, 1]^d`` and ``y (n,)`` (float64).

    Args:
        kernel: ``"matern52"`` or ``"rbf"``, ARD.
        noise: ``None`` learns the noise variance (log-normal prior, >= 1e-4 in
            standardized units); a float fixes it, as a variance in ``y`` units (0 gives a
            floor of 1e-8 in standardized units).
        lengthscale: ``None`` learns ARD lengthscales; a float or ``(d,)`` array fixes them.
        outputscale: ``None`` keeps BoTorch's default (no scale kernel: prior variance 1
            in standardized units, i.e. ``var(y)``); a float fixes the prior variance in
            ``y`` units.
        mean: ``"constant"`` (learned constant) or ``"zero"`` (the mean of ``y``, since
            outputs are standardized).
        fit: maximize the marginal likelihood over the free hyperparameters. If that
            fails the model falls back to the starting hyperparameters with a warning.
        init: starting raw hyperparameters from :meth:`GP.state` (warm start).
        input_transform: a BoTorch input transform of the model, e.g.
            :func:`isoline.models.rounding.space_rounding` for a typed space.
        ftol: L-BFGS-B's relative tolerance on the decrease of the negative marginal
            log-likelihood (scipy's ``ftol``); ``None`` keeps scipy's default (about 2e-9).
            A looser value stops a warm-started fit once the likelihood has settled.
        log_params: search the learned lengthscales and noise variance in log space
            (``value = lower bound + exp(raw)``) instead of BoTorch's untransformed
            ``value = raw``. The priors, bounds and optimum are the same; L-BFGS-B's steps
            are better scaled for parameters that span orders of magnitude, so it needs
            far fewer iterations (Optuna's GPSampler and GPyTorch's default constraints
            fit in log space too). A warm start must come from a fit with the same value.
        priors: ``"botorch"``: BoTorch's defaults above (no learned signal variance).
            ``"optuna"``: the priors of Optuna's ``GPSampler`` (Optuna 4-5,
            ``optuna._gp.prior``): a learned signal variance with a Gamma(2, 1) prior, a
            noise variance with a Gamma(1.1, 30) prior above 1e-6, and on each inverse
            squared lengthscale ``lam`` the log-density ``-(0.1 / lam + 0.1 lam)``
            (:class:`InverseSquaredLengthscalePrior`), all in standardized units. With
            learned lengthscales and signal variance only, and not in log space; a fixed
            ``noise`` (e.g. a nugget for noise-free objectives) replaces the noise prior.
        arc: a :class:`~isoline.params.Space` with conditions whose encoding ``X`` is: its
            conditional parameters are compared by the arc kernel
            (:mod:`isoline.models.arc`; same priors, learned lengthscales) instead of as
            the imputed columns of :mod:`isoline.conditions`.

    Randomness: only the retries of ``fit_gpytorch_mll`` sample from torch's global
    generator; call inside :meth:`isoline.methods.base.Method.torch_rng`.
    Raises :class:`GPFitError` if the posterior is still not finite.
    """
    return _fit_gp(
        X, y, kernel, noise, lengthscale, outputscale, mean, fit, init, input_transform, ftol,
        check_bool(log_params, "log_params"), check_choice(priors, "priors", PRIORS), arc,
    )  # fmt: skip


def _fit_gp(
    X: np.ndarray,
    y: np.ndarray,
    kernel: str,
    noise: float | None,
    lengthscale: float | Sequence[float] | np.ndarray | None,
    outputscale: float | None,
    mean: str,
    fit: bool,
    init: Mapping[str, np.ndarray] | None,
    input_transform: InputTransform | None = None,
    ftol: float | None = None,
    log_params: bool = False,
    priors: str = "botorch",
    arc: Space | None = None,
) -> GP:
    Xt, yt = _check_data(X, y)
    if priors == "optuna" and (log_params or lengthscale is not None or outputscale is not None):
        raise ValueError(
            "priors='optuna' needs learned lengthscales and signal variance, not in log space "
            "(leave lengthscale and outputscale None and log_params False)"
        )
    if kernel not in KERNELS:
        raise ValueError(f"kernel must be one of {KERNELS}, got {kernel!r}")
    if mean not in MEANS:
        raise ValueError(f"mean must be one of {MEANS}, got {mean!r}")
    os_ = None if outputscale is None else check_positive(outputscale, "outputscale")
    nz = None if noise is None else check_float(noise, "noise", 0.0)
    if not isinstance(fit, bool):
        raise TypeError(f"fit must be True or False, got {fit!r}")
    solver = {} if ftol is None else {"options": {"ftol": check_positive(ftol, "ftol")}}
    d = Xt.shape[1]
    if priors == "optuna":
        covar = _optuna_kernel(kernel, d)
        likelihood = _optuna_likelihood() if noise is None else _make_likelihood(noise)
    else:
        covar = _make_kernel(kernel, d, lengthscale, outputscale is not None, log_params)
        likelihood = _make_likelihood(noise, log_params)
    if arc is not None:
        covar = arc_kernel(covar, arc, kernel)
    model = SingleTaskGP(
        Xt,
        yt.unsqueeze(-1),
        likelihood=likelihood,
        covar_module=covar,
        mean_module=ConstantMean() if mean == "constant" else ZeroMean(),
        outcome_transform=Standardize(m=1, min_stdv=_min_stdv(yt)),
        input_transform=input_transform,
    ).to(DTYPE)
    # fixed variances are given in y units: convert with the standardization variance
    var_s = outcome_scale(model) ** 2
    with torch.no_grad():
        if os_ is not None:
            model.covar_module.outputscale = os_ / var_s
        if nz is not None:
            model.likelihood.noise = max(nz / var_s, MIN_FIXED_NOISE)
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
                stacklevel=3,
            )
    try:
        gp = GP(model, kernel)
    except (GPFitError, NotPSDError, NanError) as err:
        if not fit:
            raise GPFitError(f"the GP's training covariance is not usable: {err}") from err
        model.load_state_dict(start)
        gp = GP(model, kernel)
    return gp


# -- helpers ---------------------------------------------------------------------------
def _check_data(X: np.ndarray, y: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
    Xa = np.asarray(X, dtype=float)
    ya = np.asarray(y, dtype=float).reshape(-1)
    if Xa.ndim != 2 or Xa.shape[0] == 0 or Xa.shape[1] == 0:
        raise ValueError(f"X must be a non-empty (n, d) array, got shape {Xa.shape}")
    if Xa.shape[0] != ya.shape[0]:
        raise ValueError(f"X has {Xa.shape[0]} rows but y has {ya.shape[0]} values")
    if not (np.all(np.isfinite(Xa)) and np.all(np.isfinite(ya))):
        raise ValueError("X and y must be finite (drop or impute failed evaluations first)")
    return torch.as_tensor(Xa, dtype=DTYPE), torch.as_tensor(ya, dtype=DTYPE)


def _min_stdv(y: torch.Tensor) -> float:
    """Spread below which ``y`` counts as constant: relative to its magnitude."""
    return max(1e-14 * float(y.abs().max()), 1e-300)


def _ard_kernel(kernel: str, d: int, **kw: Any) -> Kernel:
    """An ARD RBF or Matern-5/2 kernel over ``d`` columns (``kw``: GPyTorch's arguments)."""
    if kernel == "rbf":
        return RBFKernel(ard_num_dims=d, **kw)
    return MaternKernel(nu=2.5, ard_num_dims=d, **kw)


def _make_kernel(
    kernel: str,
    d: int,
    lengthscale: float | Sequence[float] | np.ndarray | None,
    fixed_outputscale: bool,
    log_params: bool = False,
) -> Kernel:
    if lengthscale is None:
        base = get_covar_module_with_dim_scaled_prior(
            ard_num_dims=d, use_rbf_kernel=kernel == "rbf"
        )
        if log_params:
            _log_transform(base, "raw_lengthscale")
    else:
        ls = check_positive_vector(lengthscale, "lengthscale", d)
        base = _ard_kernel(kernel, d, lengthscale_constraint=Positive()).to(DTYPE)
        base.lengthscale = torch.as_tensor(ls, dtype=DTYPE).reshape(1, d)
        base.raw_lengthscale.requires_grad_(False)
    if not fixed_outputscale:
        return base
    k = ScaleKernel(base, outputscale_constraint=Positive())
    k.raw_outputscale.requires_grad_(False)  # value set by fit_gp after standardizing
    return k


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


def _optuna_kernel(kernel: str, d: int) -> Kernel:
    """ARD kernel with a learned signal variance under Optuna GPSampler's priors."""
    base = _ard_kernel(
        kernel, d, lengthscale_prior=InverseSquaredLengthscalePrior(),
        lengthscale_constraint=Positive(),
    )  # fmt: skip
    k = ScaleKernel(base, outputscale_prior=GammaPrior(2.0, 1.0), outputscale_constraint=Positive())
    with torch.no_grad():
        base.lengthscale = torch.ones(1, d)
        k.outputscale = torch.tensor(1.0)
    return k.to(DTYPE)


def _optuna_likelihood() -> GaussianLikelihood:
    """Gaussian noise above 1e-6 with Optuna GPSampler's Gamma(1.1, 30) prior."""
    lik = GaussianLikelihood(noise_prior=GammaPrior(1.1, 30.0), noise_constraint=GreaterThan(1e-6))
    with torch.no_grad():
        lik.noise = torch.tensor(0.1 / 30.0)  # the prior's mode
    return lik.to(DTYPE)


def _make_likelihood(noise: float | None, log_params: bool = False) -> GaussianLikelihood:
    if noise is None:
        lik = get_gaussian_likelihood_with_lognormal_prior()
        if log_params:
            _log_transform(lik.noise_covar, "raw_noise")
        return lik
    lik = GaussianLikelihood(noise_constraint=GreaterThan(MIN_FIXED_NOISE / 2, transform=None))
    lik.noise_covar.raw_noise.requires_grad_(False)  # value set by fit_gp after standardizing
    return lik


def _log_transform(module: GPyTorchModule, raw_name: str) -> None:
    """Re-register ``module``'s ``GreaterThan`` constraint on ``raw_name`` with an exp
    transform, keeping its lower bound and the parameter's current (prior-mode) value."""
    old = cast(GreaterThan, module.constraint_for_parameter_name(raw_name))
    value = old.transform(getattr(module, raw_name).detach())
    new = GreaterThan(old.lower_bound, transform=torch.exp, inv_transform=torch.log)
    module.register_constraint(raw_name, new)
    with torch.no_grad():
        getattr(module, raw_name).copy_(new.inverse_transform(value))


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
