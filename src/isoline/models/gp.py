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
from botorch.models import SingleTaskGP
from botorch.models.transforms.input import InputTransform
from gpytorch.kernels import Kernel, MaternKernel, RBFKernel, ScaleKernel
from gpytorch.utils.warnings import NumericalWarning

from isoline.models.derivatives import CURVATURE, outcome_scale
from isoline.models.gp_fit import DTYPE, KERNELS, MEANS, PRIORS, build_model, check_data, fit_model
from isoline.models.kernels import MIN_FIXED_NOISE
from isoline.models.linalg import GPFitError, cholesky
from isoline.params import Space
from isoline.validation import check_bool, check_choice, check_float, check_positive

__all__ = [
    "GP",
    "GPFitError",
    "KERNELS",
    "MEANS",
    "PRIORS",
    "fit_gp",
]


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
            (:class:`~isoline.models.kernels.InverseSquaredLengthscalePrior`), all in
            standardized units. With learned lengthscales and signal variance only, and not
            in log space; a fixed ``noise`` (e.g. a nugget for noise-free objectives)
            replaces the noise prior.
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
    Xt, Yt = check_data(X, np.asarray(y, dtype=float).reshape(-1, 1))
    if priors == "optuna" and (log_params or lengthscale is not None or outputscale is not None):
        raise ValueError(
            "priors='optuna' needs learned lengthscales and signal variance, not in log space "
            "(leave lengthscale and outputscale None and log_params False)"
        )
    os_ = None if outputscale is None else check_positive(outputscale, "outputscale")
    nz = None if noise is None else check_float(noise, "noise", 0.0)
    model = build_model(
        Xt, Yt, kernel, mean, input_transform, log_params, priors, arc,
        noise=nz, lengthscale=lengthscale, fixed_outputscale=os_ is not None,
    )  # fmt: skip
    # fixed variances are given in y units: convert with the standardization variance
    var_s = outcome_scale(model) ** 2
    with torch.no_grad():
        if os_ is not None:
            model.covar_module.outputscale = os_ / var_s
        if nz is not None:
            model.likelihood.noise = max(nz / var_s, MIN_FIXED_NOISE)
    return fit_model(model, fit, init, ftol, lambda m: GP(m, kernel))
