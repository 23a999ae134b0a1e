"""GP-sampled synthetic objectives (GIBO §4.1, used by MPD and MinUCB §8.1).

One draw of a zero-mean GP with an ARD RBF kernel (outputscale 1) at ``n_points``
unscrambled Sobol points of ``[0, 1]^d``; the objective is the GP posterior mean given
those values, a smooth function that interpolates the draw. Lengthscales are drawn per
dimension from ``U(2 l (1 - 0.3), 2 l (1 + 0.3))`` with
``l(d) = delta(d) * 0.1 / delta(2)``,
``delta(d) = sqrt(d / 6) * sqrt((1 + 2 sqrt(1 - 3 / (5 d))) / 3)``
(DESIGN.md §4.2; d=25 -> U(0.52, 0.97)).

The papers maximize such a sample; isoline minimizes the posterior mean itself. Since the
prior is zero-mean and symmetric, ``f`` and ``-f`` have the same distribution, so the
family of problems is unchanged.

Two variants:

* ``"reference"`` (default), as the public code of the MPD paper (Nguyen et al., "Local
  Bayesian optimization via maximizing probability of descent", NeurIPS 2022) builds the
  objectives that GIBO, MPD and MinUCB are compared on: the posterior mean is computed
  under GPyTorch's default likelihood noise, softplus(0) = ln 2 (a smoothed,
  lower-amplitude version of the draw), and one lengthscale vector per dimension ``d`` is
  shared by every objective (seed) of that dimension.
* ``"interpolating"``: a near-interpolating posterior mean (noise ``1e-4``) and
  lengthscales drawn per seed, the variant isoline used before.

Runs in the reference set-up start at the cube's centre (``init: centre``).
"""

from __future__ import annotations

import math
from typing import Any, cast

import numpy as np
import torch
from botorch.generation.gen import gen_candidates_scipy
from linear_operator.utils.cholesky import psd_safe_cholesky

from isoline.designs import sobol
from isoline.problems.base import Problem
from isoline.threads import limit_threads

__all__ = ["GPSample", "VARIANTS", "lengthscale_range"]

#: GPyTorch's default likelihood noise variance, softplus(0)
GPYTORCH_DEFAULT_NOISE = math.log(2.0)
#: variant -> (posterior noise variance, lengthscales shared by all seeds of a dimension)
VARIANTS = {"reference": (GPYTORCH_DEFAULT_NOISE, True), "interpolating": (1e-4, False)}


def _delta(d: int) -> float:
    return math.sqrt(d / 6.0) * math.sqrt((1.0 + 2.0 * math.sqrt(1.0 - 3.0 / (5.0 * d))) / 3.0)


def lengthscale_range(dim: int, spread: float = 0.3) -> tuple[float, float]:
    """``(a, b)`` of the uniform lengthscale distribution for dimension ``dim``."""
    ell = _delta(dim) * 0.1 / _delta(2)
    return 2.0 * ell * (1.0 - spread), 2.0 * ell * (1.0 + spread)


class GPSample(Problem):
    """Posterior mean of one GP sample on ``[0, 1]^d`` (minimize).

    Args:
        dim: number of variables.
        noise_std: observation noise (default 0.1, as GIBO/MPD/MinUCB); ``__call__``
            returns ``(noisy value, {"noise_free": value})``.
        seed: seed of the lengthscales, the GP draw and the noise.
        n_points: number of unscrambled Sobol points the GP is sampled at (1000 in the papers).
        variant: ``"reference"`` or ``"interpolating"`` (see the module docstring).
        posterior_noise: noise variance used when conditioning on the draw; ``None`` takes
            the variant's.
        n_restarts: L-BFGS-B starts (the lowest sampled points) when estimating the optimum.

    Attributes:
        lengthscales: ``(d,)`` the drawn lengthscales.
        train_x: ``(n_points, d)`` the Sobol points; ``train_y``: ``(n_points,)`` the draw.
    """

    name = "gp-sample"
    description = "posterior mean of a GP sample on [0,1]^d (GIBO §4.1)"
    default_noise_std = 0.1

    def __init__(
        self,
        dim: int,
        *,
        noise_std: float | str = 0.1,
        seed: int = 0,
        n_points: int = 1000,
        variant: str = "reference",
        posterior_noise: float | None = None,
        n_restarts: int = 32,
    ) -> None:
        super().__init__(dim, [0.0] * dim, [1.0] * dim, noise_std=noise_std, seed=seed)
        if variant not in VARIANTS:
            raise ValueError(f"variant must be one of {sorted(VARIANTS)}, got {variant!r}")
        self.variant = variant
        default_noise, shared = VARIANTS[variant]
        posterior_noise = default_noise if posterior_noise is None else posterior_noise
        if isinstance(n_points, bool) or not isinstance(n_points, int) or n_points < 2:
            raise ValueError(f"n_points must be an integer >= 2, got {n_points!r}")
        if not (isinstance(posterior_noise, (int, float)) and 0 < posterior_noise < 1):
            raise ValueError(f"posterior_noise must be in (0, 1), got {posterior_noise!r}")
        if isinstance(n_restarts, bool) or not isinstance(n_restarts, int) or n_restarts < 1:
            raise ValueError(f"n_restarts must be an integer >= 1, got {n_restarts!r}")
        self.n_restarts = n_restarts
        rng = np.random.default_rng([seed, 0x67705F73])
        a, b = lengthscale_range(self.dim)
        ls_rng = np.random.default_rng([self.dim, 0x6C73]) if shared else rng
        self.lengthscales = ls_rng.uniform(a, b, size=self.dim)
        self.train_x = sobol(n_points, self.dim, seed=None, scramble=False)
        X = torch.as_tensor(self.train_x / self.lengthscales, dtype=torch.float64)
        with limit_threads(1):  # the instance must not depend on the caller's thread count
            K = self._kernel(X, X)
            L = psd_safe_cholesky(K)
            z = torch.as_tensor(rng.standard_normal(n_points), dtype=torch.float64)
            y = L @ z
            Ln = psd_safe_cholesky(K + posterior_noise * torch.eye(n_points, dtype=torch.float64))
            self._alpha = torch.cholesky_solve(y[:, None], Ln)[:, 0]
        self.train_y = y.numpy().copy()
        self._Xs = X
        self._inv_ls = torch.as_tensor(1.0 / self.lengthscales, dtype=torch.float64)

    def model_hints(self) -> dict[str, Any]:
        """The generating hyperparameters in y units, as the GIBO/MPD reference code fixes them."""
        return {
            "lengthscale": [float(v) for v in self.lengthscales],
            "outputscale": 1.0,
            "noise": self.noise_std**2,
        }

    @staticmethod
    def _kernel(A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        """RBF kernel of already lengthscale-scaled inputs ``(n, d), (m, d) -> (n, m)``."""
        return torch.exp(-0.5 * torch.cdist(A, B).square())

    def mean(self, X: torch.Tensor) -> torch.Tensor:
        """Differentiable objective: ``(..., d)`` tensor -> ``(...)`` posterior mean."""
        X = X.to(torch.float64)
        flat = X.reshape(-1, self.dim) * self._inv_ls
        return (self._kernel(flat, self._Xs) @ self._alpha).reshape(X.shape[:-1])

    def _evaluate(self, x: np.ndarray) -> float:
        return float(self.evaluate_batch(x[None])[0])

    def evaluate_batch(self, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X, dtype=float)
        if X.ndim != 2 or X.shape[1] != self.dim:
            raise ValueError(f"X must have shape (n, {self.dim}), got {X.shape}")
        with torch.no_grad(), limit_threads(1):
            return self.mean(torch.as_tensor(X)).numpy()

    def _find_optimum(self) -> tuple[float, np.ndarray]:
        """Multi-start L-BFGS-B (BoTorch ``gen_candidates_scipy``) on the posterior mean,
        started from the ``n_restarts`` lowest sampled points (as GIBO's code does)."""
        order = np.argsort(self.train_y)[: self.n_restarts]
        starts = torch.as_tensor(self.train_x[order], dtype=torch.float64).unsqueeze(-2)
        with limit_threads(1):
            cands, vals = gen_candidates_scipy(
                starts,
                cast(Any, lambda Z: -self.mean(Z.squeeze(-2))),  # a callable serves as acqf
                lower_bounds=0.0,
                upper_bounds=1.0,
                options={"maxiter": 500},
            )
            X = torch.cat([cands.squeeze(-2).detach(), starts.squeeze(-2)])
            with torch.no_grad():
                f = self.mean(X)
        i = int(torch.argmin(f))
        return float(f[i]), X[i].numpy().copy()
