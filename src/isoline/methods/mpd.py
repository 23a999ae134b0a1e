"""MPD: local BO by maximizing the probability of descent (Nguyen et al., NeurIPS 2022).

For minimization, with the posterior of the gradient ``grad f(x) ~ N(mu, Sigma)``:

* the most probable descent direction is ``v* = -Sigma^-1 mu / ||Sigma^-1 mu||`` and its
  probability of descent ``P(v*^T grad f < 0) = Phi(sqrt(mu^T Sigma^-1 mu))`` (MPD §3.1);
* sampling: each point ``z`` maximizes the expected value of ``mu'^T Sigma'^-1 mu'`` after
  observing ``z`` (MPD §3.2; the reference code's ``DownhillQuadratic``). With
  ``c = Cov(grad f(x), f(z))``, ``s = Var(y(z))``, ``a = Sigma^-1 c`` and
  ``g = s - c^T a`` it equals ``mu^T Sigma^-1 mu + ((a^T mu)^2 + c^T a) / g``
  (Sherman-Morrison; the first term does not depend on ``z``);
* move: repeated steps ``x <- x + eta v*(x)`` while the descent probability at ``x`` stays
  above ``p_threshold`` (reference code: ``eta = 0.01``, threshold 0.65, at most 10,000
  steps). The reference runs unbounded; here steps are clipped to the unit cube and the
  walk also stops when the box blocks more than half of a step.

One iteration: evaluate ``x_t``, ``n_samples`` points chosen greedily in ``x_t +- delta``,
then the move. Differences from the reference code, on purpose: the descent probability
is the paper's ``Phi(sqrt(mu^T Sigma^-1 mu))`` (the code evaluates ``Phi(sqrt(v^T mu))``
with the normalized ``v``), the gradient covariance is not clipped entrywise at 1e-9, and
``mu`` in the sampling criterion is the gradient mean at ``x_t`` before ``x_t``'s own
evaluation (so that the whole sampling batch can be planned at once).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from botorch.acquisition import AcquisitionFunction
from botorch.models.model import Model
from botorch.utils.transforms import t_batch_mode_transform
from scipy.stats import norm

from isoline.methods.local import GradientLocalBO
from isoline.methods.registry import register
from isoline.models.derivatives import GradientCrossCovariance, GradientPosterior
from isoline.models.linalg import cholesky
from isoline.validation import check_float, check_int

__all__ = ["MPD", "DescentInformation", "most_probable_descent"]


def most_probable_descent(mu: np.ndarray, Sigma: np.ndarray) -> tuple[np.ndarray, float]:
    """Unit direction ``v*`` ``(d,)`` most likely to descend, and that probability.

    ``mu (d,)``, ``Sigma (d, d)``: posterior mean and covariance of ``grad f(x)``.
    """
    L = cholesky(torch.as_tensor(Sigma), max_jitter=1e-2)
    w = torch.cholesky_solve(torch.as_tensor(mu).reshape(-1, 1), L).reshape(-1).numpy()
    m2 = max(float(mu @ w), 0.0)
    nrm = float(np.linalg.norm(w))
    if nrm == 0.0 or not math.isfinite(nrm):
        return np.zeros_like(mu), 0.5
    return -w / nrm, float(norm.cdf(math.sqrt(m2)))


class DescentInformation(AcquisitionFunction):
    """MPD's sampling criterion: ``((a^T mu)^2 + c^T a) / (s - c^T a)`` (maximized).

    ``mu (d,)`` is the gradient mean at ``x`` (held fixed); ``Sigma`` is the gradient
    covariance at ``x`` under the model's training data, ``c`` and ``s`` the
    :class:`~isoline.models.derivatives.GradientCrossCovariance` of a candidate.
    Input ``(b, 1, d)``.
    """

    def __init__(self, model: Model, x: np.ndarray, grad_mean: np.ndarray) -> None:
        super().__init__(model)
        self.cross = GradientCrossCovariance(model, x)
        self.mu = torch.as_tensor(np.asarray(grad_mean, dtype=float), dtype=torch.float64)
        Sigma = self.cross.gradient_covariance()
        self.LS = cholesky(0.5 * (Sigma + Sigma.T), max_jitter=1e-2)

    @t_batch_mode_transform(expected_q=1)  # type: ignore[arg-type]  # typed for the base class
    def forward(self, X: torch.Tensor) -> torch.Tensor:
        c, s = self.cross(X)  # (b, d), (b,)
        a = torch.cholesky_solve(c.unsqueeze(-1), self.LS).squeeze(-1)
        ca = (c * a).sum(-1)
        g = torch.maximum(s - ca, 1e-12 * s)
        return ((a @ self.mu).square() + ca) / g


@register
class MPD(GradientLocalBO):
    """MPD (Nguyen et al. 2022): most-probable-descent sampling and moves.

    Options:
        n_samples: points sampled per iteration (default ``d``, the synthetic setting).
        delta: half-width of the sampling box around ``x_t`` (default 0.2).
        step: length ``eta`` of one move step in the unit cube (default 0.01).
        p_threshold: keep stepping while the descent probability is at least this
            (default 0.65), in ``(0.5, 1)``.
        max_steps: most move steps per iteration (default 1000; reference 10,000).
        See :class:`~isoline.methods.local.LocalBO` for the GP options.

    Typed spaces: the method's theory is continuous, so it searches the relaxed encoding;
    :meth:`~isoline.methods.base.Method.ask` rounds each point to its configuration.
    """

    name = "mpd"
    summary = "local GP, most-probable descent"
    paper = "Nguyen et al., NeurIPS 2022 (MPD)"

    def __init__(
        self,
        dim: int,
        *,
        n_samples: int | None = None,
        delta: float = 0.2,
        step: float = 0.01,
        p_threshold: float = 0.65,
        max_steps: int = 1000,
        **options: Any,
    ) -> None:
        super().__init__(dim, **options)
        self.n_samples = check_int(dim if n_samples is None else n_samples, "n_samples", 1)
        self.delta = check_float(delta, "delta", 0.0, 1.0, low_open=True)
        self.step = check_float(step, "step", 0.0, 1.0, low_open=True)
        self.p_threshold = check_float(
            p_threshold, "p_threshold", 0.5, 1.0, low_open=True, high_open=True
        )
        self.max_steps = check_int(max_steps, "max_steps", 1)
        self._grad_mean: np.ndarray | None = None
        self.last_steps = 0

    def _criterion(self) -> Callable[[Model, np.ndarray], AcquisitionFunction]:
        if self._grad_mean is None:  # first iteration: gradient mean from the data so far
            X, y = self._observed()
            self._grad_mean = np.zeros(self.dim)
            if len(y) >= 1:
                gp = self.local.with_hypers(X, y, self._planning_hypers())
                self._grad_mean = gp.gradient_posterior(self.x_t)[0]
        return functools.partial(DescentInformation, grad_mean=self._grad_mean)

    def _move(self) -> np.ndarray:
        """Step along ``v*`` while the descent probability stays above the threshold."""
        gp = self._fit()
        if gp is None:  # every evaluation failed so far: jump to a random point
            return self.rng.random(self.dim)
        grad = GradientPosterior(gp.model)
        x = self.x_t.copy()
        self.last_steps = 0
        for _ in range(self.max_steps):
            v, p = most_probable_descent(*grad(x))
            if p < self.p_threshold:
                break
            x_new = np.clip(x + self.step * v, 0.0, 1.0)
            if np.linalg.norm(x_new - x) < 0.5 * self.step:  # blocked by the box
                break
            x = x_new
            self.last_steps += 1
        self._grad_mean = grad(x)[0]
        return x
