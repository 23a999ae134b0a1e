"""DNGO surrogate: Bayesian linear regression on the last hidden layer of a tanh network.

Snoek et al., "Scalable Bayesian optimization using deep neural networks", ICML 2015,
with the defaults of AutoML's ``pybnn`` DNGO (used by the NeuralBO paper, §7): a
50-50-50 tanh network with a linear output, trained by Adam (step 0.01, minibatch 10,
500 epochs, mean-squared error; incomplete last minibatches are skipped as in pybnn) on
inputs and outputs normalized to zero mean and unit variance; then Bayesian linear
regression (BLR) on the ``(n, 50)`` last-hidden-layer features ``Phi`` with weight prior
``N(0, alpha^-1 I)`` and noise precision ``beta``.

``alpha`` and ``beta`` maximize the log marginal likelihood (Bishop 2006, eq. 3.86)
``D/2 log alpha + N/2 log beta - N/2 log 2pi - beta/2 ||y - Phi m||^2 - alpha/2 m^T m
- 1/2 log|A|``, ``A = beta Phi^T Phi + alpha I``, ``m = beta A^-1 Phi^T y``, over
``log alpha, log(1/beta)`` in ``[-10, 10]`` (pybnn's box) by L-BFGS-B from a few starts;
pybnn's default instead samples them by MCMC (emcee), which we do not use.

:class:`DNGO` is a BoTorch ``Model``: ``posterior(X)`` is the joint Gaussian of the latent
function at ``X`` (``b x q x d``), mean ``phi(x)^T m`` and covariance ``phi(x)^T A^-1 phi(x')``
in the units of ``y``, so BoTorch's analytic and Monte-Carlo acquisition functions apply.
Everything is float64 on the CPU.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from botorch.models.model import Model
from botorch.posteriors.gpytorch import GPyTorchPosterior
from gpytorch.distributions import MultivariateNormal
from scipy.optimize import minimize
from torch import Tensor, nn

__all__ = ["DNGO", "blr_log_marginal_likelihood"]

DTYPE = torch.float64
#: box of the log hyperparameters (pybnn)
_LOG_BOUND = 10.0


def blr_log_marginal_likelihood(
    Phi: Tensor, y: Tensor, log_alpha: Tensor, log_noise: Tensor
) -> Tensor:
    """Log evidence of BLR with ``alpha = exp(log_alpha)``, ``beta = exp(-log_noise)``.

    ``Phi`` ``(N, D)`` features, ``y`` ``(N,)`` targets; Bishop (2006) eq. 3.86.
    """
    N, D = Phi.shape
    alpha, beta = log_alpha.exp(), (-log_noise).exp()
    A = beta * Phi.T @ Phi + alpha * torch.eye(D, dtype=Phi.dtype)
    L = torch.linalg.cholesky(A)
    m = beta * torch.cholesky_solve((Phi.T @ y)[:, None], L).squeeze(-1)
    resid = y - Phi @ m
    return (
        0.5 * D * log_alpha
        - 0.5 * N * log_noise
        - 0.5 * N * math.log(2 * math.pi)
        - 0.5 * beta * resid @ resid
        - 0.5 * alpha * m @ m
        - torch.log(torch.diagonal(L)).sum()
    )


class _Net(nn.Module):
    """pybnn's DNGO network: tanh hidden layers and a linear output."""

    def __init__(self, d: int, units: Sequence[int]) -> None:
        super().__init__()
        layers: list[nn.Module] = []
        for n_in, n_out in zip([d, *units[:-1]], units):
            layers += [nn.Linear(n_in, n_out, dtype=DTYPE), nn.Tanh()]
        self.body = nn.Sequential(*layers)
        self.out = nn.Linear(units[-1], 1, dtype=DTYPE)

    def forward(self, x: Tensor) -> Tensor:
        return self.out(self.body(x)).squeeze(-1)


class DNGO(Model):
    """DNGO trained on ``X`` ``(n, d)`` (unit cube) and ``y`` ``(n,)`` at construction.

    Args:
        X, y: training data (finite ``y``).
        units: hidden-layer widths (pybnn: 50, 50, 50).
        epochs, batch_size, lr: Adam training (pybnn: 500, 10, 0.01).
        generator: torch generator for the initialization and minibatch order.
    """

    def __init__(
        self,
        X: np.ndarray,
        y: np.ndarray,
        *,
        units: Sequence[int] = (50, 50, 50),
        epochs: int = 500,
        batch_size: int = 10,
        lr: float = 0.01,
        generator: torch.Generator,
    ) -> None:
        super().__init__()
        Xt = torch.as_tensor(X, dtype=DTYPE)
        yt = torch.as_tensor(y, dtype=DTYPE)
        self.x_mean = Xt.mean(0)
        self.x_std = Xt.std(0, correction=0).clamp_min(1e-8)
        self.y_mean = yt.mean()
        self.y_std = (
            yt.std(correction=0).clamp_min(1e-12) if len(yt) > 1 else torch.tensor(1.0, dtype=DTYPE)
        )
        Xn = (Xt - self.x_mean) / self.x_std
        yn = (yt - self.y_mean) / self.y_std
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(int(torch.randint(2**62, (1,), generator=generator)))
            self.net = _Net(Xt.shape[1], list(units))
        self.train_losses = self._train(Xn, yn, epochs, batch_size, lr, generator)
        self.net.requires_grad_(False)
        with torch.no_grad():
            Phi = self.net.body(Xn)
        self.log_alpha, self.log_noise = self._fit_hypers(Phi, yn)
        alpha, beta = math.exp(self.log_alpha), math.exp(-self.log_noise)
        A = beta * Phi.T @ Phi + alpha * torch.eye(Phi.shape[1], dtype=DTYPE)
        self._A_chol = torch.linalg.cholesky(A)
        self._m = beta * torch.cholesky_solve((Phi.T @ yn)[:, None], self._A_chol).squeeze(-1)

    def _train(
        self, X: Tensor, y: Tensor, epochs: int, batch_size: int, lr: float, gen: torch.Generator
    ) -> list[float]:
        opt = torch.optim.Adam(self.net.parameters(), lr=lr, foreach=True)
        n = len(X)
        bs = min(batch_size, n)
        losses = []
        for _ in range(epochs):
            perm = torch.randperm(n, generator=gen)
            total, batches = 0.0, 0
            for start in range(0, n - bs + 1, bs):  # pybnn skips the incomplete batch
                idx = perm[start : start + bs]
                opt.zero_grad()
                loss = torch.mean((self.net(X[idx]) - y[idx]) ** 2)
                loss.backward()
                opt.step()
                total += float(loss.detach())
                batches += 1
            losses.append(total / max(batches, 1))
        return losses

    @staticmethod
    def _fit_hypers(Phi: Tensor, y: Tensor) -> tuple[float, float]:
        """Maximize the BLR evidence over ``(log alpha, log 1/beta)`` in ``[-10, 10]^2``."""

        def neg(v: np.ndarray) -> tuple[float, np.ndarray]:
            p = torch.tensor(v, dtype=DTYPE, requires_grad=True)
            try:
                val = -blr_log_marginal_likelihood(Phi, y, p[0], p[1])
                val.backward()
            except torch.linalg.LinAlgError:
                return 1e25, np.zeros(2)
            assert p.grad is not None
            g = p.grad.numpy()
            if not (torch.isfinite(val) and np.all(np.isfinite(g))):
                return 1e25, np.zeros(2)
            return float(val.detach()), g

        best: Any = None
        for start in ((0.0, -3.0), (0.0, 0.0), (-3.0, -6.0), (3.0, -1.0)):
            res = minimize(
                neg,
                np.array(start),
                jac=True,
                method="L-BFGS-B",
                bounds=[(-_LOG_BOUND, _LOG_BOUND)] * 2,
            )
            if best is None or res.fun < best.fun:
                best = res
        return float(best.x[0]), float(best.x[1])

    # -- BoTorch Model interface ---------------------------------------------------------
    @property
    def num_outputs(self) -> int:
        return 1

    @property
    def batch_shape(self) -> torch.Size:
        return torch.Size([])

    def features(self, X: Tensor) -> Tensor:
        """Last-hidden-layer features ``(..., 50)`` of unit-cube inputs ``(..., d)``."""
        return self.net.body((X.to(DTYPE) - self.x_mean) / self.x_std)

    def posterior(
        self,
        X: Tensor,
        output_indices: list[int] | None = None,
        observation_noise: bool | Tensor = False,
        posterior_transform: Any = None,
        **kwargs: Any,
    ) -> GPyTorchPosterior:
        """Joint Gaussian of ``f`` at ``X`` (``batch x q x d``), in the units of ``y``."""
        Phi = self.features(X)  # (..., q, D)
        mean = Phi @ self._m
        V = torch.linalg.solve_triangular(self._A_chol, Phi.transpose(-1, -2), upper=False)
        cov = V.transpose(-1, -2) @ V
        if observation_noise is True:
            cov = cov + math.exp(self.log_noise) * torch.eye(cov.shape[-1], dtype=DTYPE)
        cov = cov + 1e-10 * torch.eye(cov.shape[-1], dtype=DTYPE)
        mvn = MultivariateNormal(self.y_mean + self.y_std * mean, self.y_std**2 * cov)
        post = GPyTorchPosterior(mvn)
        return posterior_transform(post) if posterior_transform is not None else post

    def predict(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(mean (n,), variance (n,))`` of the latent function at ``X`` ``(n, d)``."""
        with torch.no_grad():
            Phi = self.features(torch.as_tensor(X, dtype=DTYPE))
            V = torch.linalg.solve_triangular(self._A_chol, Phi.T, upper=False)
            mean = self.y_mean + self.y_std * (Phi @ self._m)
            var = self.y_std**2 * (V * V).sum(0)
        return mean.numpy(), var.numpy()
