"""Posterior derivatives of the RBF and Matern-5/2 GPs, computed from the training factor.

The local methods (GIBO, MPD, MinUCB, LA-MinUCB) query the same fitted GP thousands of
times per iteration: for the gradient ``grad f(x)``, for the joint posterior at point
sets, and for the covariance between ``grad f(x)`` and ``f(z)``. These classes compute
those quantities directly from the Cholesky factor of the training covariance, with the
kernels' analytic derivatives (Rasmussen & Williams, *Gaussian Processes for Machine
Learning*, MIT Press 2006, §4.2 and §9.4), instead of going through GPyTorch's dispatch.
They accept the models of :func:`isoline.models.gp.fit_gp` (standardized outputs, ARD
RBF or Matern-5/2 kernel, with or without a scale kernel) and answer in ``y`` units.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch

from isoline.models.linalg import cholesky

__all__ = [
    "CURVATURE",
    "GradientCrossCovariance",
    "GradientPosterior",
    "JointPosterior",
    "kernel_and_gradient",
    "kernel_matrix",
    "kernel_parts",
    "outcome_scale",
    "train_factor",
]

DTYPE = torch.float64
#: -k''(0) of the unit-lengthscale, unit-variance kernels: the prior variance of
#: ``df/dx_i`` is ``CURVATURE[kind] * outputscale / l_i^2`` (Rasmussen & Williams 2006, §9.4)
CURVATURE = {"rbf": 1.0, "matern52": 5.0 / 3.0}


def outcome_scale(model: Any) -> float:
    """Standard deviation of the model's ``Standardize`` outcome transform (``y`` units)."""
    return float(model.outcome_transform.stdvs.reshape(-1)[0])


def kernel_parts(model: Any) -> tuple[str, torch.Tensor, torch.Tensor]:
    """``(kind, lengthscales (d,), outputscale)`` of a model's RBF/Matern-5/2 kernel
    (standardized units)."""
    k = model.covar_module
    base = getattr(k, "base_kernel", k)
    os_ = (
        k.outputscale.detach().reshape(())
        if hasattr(k, "base_kernel")
        else torch.tensor(1.0, dtype=DTYPE)
    )
    nu = getattr(base, "nu", None)
    if nu is None:
        kind = "rbf"
    elif float(nu) == 2.5:
        kind = "matern52"
    else:
        raise ValueError(f"local BO supports the RBF and Matern-5/2 kernels, got nu={nu}")
    return kind, base.lengthscale.detach().reshape(-1), os_


def kernel_and_gradient(
    kind: str, ls: torch.Tensor, os_: torch.Tensor, x: torch.Tensor, Z: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Kernel ``k(x, Z) (..., m)`` and its gradient in ``x``, ``(..., m, d)``.

    ``x (..., d)``, ``Z (..., m, d)``. RBF: ``dk/dx = -k (x - z) / l^2``; Matern-5/2:
    ``dk/dx = -s (5/3) (1 + sqrt5 r) exp(-sqrt5 r) (x - z) / l^2`` (Rasmussen & Williams
    2006, eq. (4.17)).
    """
    diff = (x.unsqueeze(-2) - Z) / ls  # (..., m, d), in lengthscale units
    r2 = diff.square().sum(-1)
    if kind == "rbf":
        k = os_ * torch.exp(-0.5 * r2)
        g = -k.unsqueeze(-1) * diff / ls
    else:
        r = torch.sqrt(r2.clamp_min(1e-30))
        e = torch.exp(-math.sqrt(5.0) * r)
        k = os_ * (1.0 + math.sqrt(5.0) * r + 5.0 / 3.0 * r2) * e
        g = -(os_ * 5.0 / 3.0 * (1.0 + math.sqrt(5.0) * r) * e).unsqueeze(-1) * diff / ls
    return k, g


def train_factor(model: Any) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(X (n, d), L (n, n), noise)``: training inputs, lower Cholesky factor of
    ``K + noise I`` and the noise variance, in the model's standardized units."""
    with torch.no_grad():
        X = model.train_inputs[0].detach()
        noise = model.likelihood.noise.detach().reshape(-1)[0]
        K = model.covar_module(X).to_dense() + noise * torch.eye(X.shape[0], dtype=DTYPE)
    return X, cholesky(K, max_jitter=1e-2), noise


def kernel_matrix(
    kind: str, ls: torch.Tensor, os_: torch.Tensor, A: torch.Tensor, B: torch.Tensor
) -> torch.Tensor:
    """Kernel matrix ``k(A, B)`` ``(..., m, p)`` for ``A (..., m, d)``, ``B (..., p, d)``.

    Squared distances by ``|a|^2 + |b|^2 - 2 a.b`` (as GPyTorch does): no ``(m, p, d)``
    intermediate.
    """
    a, b = A / ls, B / ls
    r2 = (a.square().sum(-1, keepdim=True) + b.square().sum(-1).unsqueeze(-2)
          - 2.0 * a @ b.transpose(-1, -2)).clamp_min(0.0)  # fmt: skip
    if kind == "rbf":
        return os_ * torch.exp(-0.5 * r2)
    r = torch.sqrt(r2.clamp_min(1e-30))
    return os_ * (1.0 + math.sqrt(5.0) * r + 5.0 / 3.0 * r2) * torch.exp(-math.sqrt(5.0) * r)


class JointPosterior:
    """Differentiable joint posterior of ``f`` at a batch of point sets, in ``y`` units.

    The same quantity as ``model.posterior(P)`` (mean and covariance) for the RBF and
    Matern-5/2 GPs of :func:`isoline.models.gp.fit_gp`, computed directly from the
    training Cholesky factor (no GPyTorch dispatch): the one-shot look-ahead evaluates it
    thousands of times per iteration, where the dispatch dominates the cost.
    """

    def __init__(self, model: Any) -> None:
        self.kind, self.ls, self.os = kernel_parts(model)
        self.Xtr, self.L, _ = train_factor(model)
        with torch.no_grad():
            m0 = model.mean_module(self.Xtr[:1]).reshape(-1)[0]
            r = model.train_targets.reshape(-1) - model.mean_module(self.Xtr).reshape(-1)
            self.alpha = torch.cholesky_solve(r.unsqueeze(-1), self.L).reshape(-1)
        self.m0 = m0.detach()
        tf = model.outcome_transform
        self.shift = float(tf.means.reshape(-1)[0])
        self.scale = float(tf.stdvs.reshape(-1)[0])

    def __call__(self, P: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Mean ``(..., m)`` and covariance ``(..., m, m)`` of ``f`` at ``P (..., m, d)``."""
        Kpx = kernel_matrix(self.kind, self.ls, self.os, P, self.Xtr)  # (..., m, n)
        mean = self.m0 + Kpx @ self.alpha
        V = torch.linalg.solve_triangular(self.L, Kpx.transpose(-1, -2), upper=False)
        cov = kernel_matrix(self.kind, self.ls, self.os, P, P) - V.transpose(-1, -2) @ V
        return self.shift + self.scale * mean, self.scale**2 * cov


class GradientPosterior:
    """Posterior of ``grad f(x)`` for repeated queries on one GP (e.g. MPD's walk).

    Mean ``dk(x, X)/dx^T K^-1 (y - m)`` ``(d,)`` and covariance
    ``d^2k(x, x')/dx dx'|_{x'=x} - dk(x, X)/dx^T K^-1 dk(X, x)/dx`` ``(d, d)``, in ``y``
    units, with the training factorization computed once: one query costs
    ``O(n^2 d + n d^2)``.
    """

    def __init__(self, model: Any) -> None:
        self.kind, self.ls, self.os = kernel_parts(model)
        self.Xtr, self.L, _ = train_factor(model)
        with torch.no_grad():
            r = model.train_targets.reshape(-1) - model.mean_module(self.Xtr).reshape(-1)
            self.alpha = torch.cholesky_solve(r.unsqueeze(-1), self.L).reshape(-1)
        self.scale = outcome_scale(model)
        self.prior = CURVATURE[self.kind] * self.os / self.ls**2

    def __call__(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        xt = torch.as_tensor(np.asarray(x, dtype=float), dtype=DTYPE).reshape(-1)
        with torch.no_grad():
            _, J = kernel_and_gradient(self.kind, self.ls, self.os, xt, self.Xtr)  # (n, d)
            mean = (J.T @ self.alpha) * self.scale
            V = torch.linalg.solve_triangular(self.L, J, upper=False)
            cov = (torch.diag(self.prior) - V.T @ V) * self.scale**2
        cov = 0.5 * (cov + cov.T)
        return mean.numpy().copy(), cov.numpy().copy()


class GradientCrossCovariance:
    """Posterior covariances between ``grad f(x)`` and ``f`` at candidates ``z``, in ``y`` units.

    For the model's training data ``D`` (Rasmussen & Williams 2006, §9.4):
    ``c(z) = Cov(grad f(x), f(z) | D) = dk(x, z)/dx - dk(x, X)/dx K^-1 k(X, z)`` and
    ``s(z) = Var(y(z) | D) = k(z, z) + noise - k(z, X) K^-1 k(X, z)``, with analytic kernel
    derivatives (RBF or Matern-5/2). The location-only sampling criteria of GIBO, MinUCB
    and MPD are built from them.
    """

    def __init__(self, model: Any, x: np.ndarray) -> None:
        self.x = torch.as_tensor(np.asarray(x, dtype=float), dtype=DTYPE).reshape(-1)
        self.kind, self.ls, self.os = kernel_parts(model)
        self.Xtr, self.L, self.noise_std = train_factor(model)
        with torch.no_grad():
            _, J = kernel_and_gradient(self.kind, self.ls, self.os, self.x, self.Xtr)  # (n, d)
            #: ``K^-1 dk(X, x)/dx`` ``(n, d)``
            self.KinvJ = torch.cholesky_solve(J, self.L)
        #: variance of the standardization of ``y`` (converts to ``y`` units)
        self.y_var = outcome_scale(model) ** 2

    def __call__(self, X: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``c (..., d)`` and ``s (...)`` for candidates ``X (..., 1, d)``."""
        z = X.squeeze(-2)
        kXz = kernel_matrix(self.kind, self.ls, self.os, z.unsqueeze(-2), self.Xtr).squeeze(-2)
        _, g0 = kernel_and_gradient(self.kind, self.ls, self.os, self.x, z.unsqueeze(-2))
        c = g0.squeeze(-2) - kXz @ self.KinvJ  # (..., d)
        V = torch.linalg.solve_triangular(self.L, kXz.unsqueeze(-1), upper=False).squeeze(-1)
        s = (self.os + self.noise_std - V.square().sum(-1)).clamp_min(1e-12)
        return c * self.y_var, s * self.y_var

    def gradient_covariance(self) -> torch.Tensor:
        """Posterior covariance of ``grad f(x)`` ``(d, d)`` under the training data, ``y`` units."""
        with torch.no_grad():
            _, J = kernel_and_gradient(self.kind, self.ls, self.os, self.x, self.Xtr)
            prior = torch.diag(CURVATURE[self.kind] * self.os / self.ls**2)
            return (prior - J.T @ self.KinvJ) * self.y_var
