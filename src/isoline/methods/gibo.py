"""GIBO: gradient-informative Bayesian optimization (Mueller et al., NeurIPS 2021).

Algorithm 3 of the MinUCB paper (GIBO in the version of Wu et al. 2024), for minimization:

    for t = 1, 2, ...
        evaluate f(x_t)                                      (GIBO code: theta_t is observed)
        X = argmin_Z alpha_trace(x_t, Z), Z in x_t +- delta  (line 3, greedily, b points)
        evaluate f on X; D_t = D_{t-1} + (X, y)              (lines 4-5)
        x_{t+1} = x_t - lr * l * g / ||g||,  g = grad mu_{D_t}(x_t)   (line 6)

The step is the reference code's normalized gradient step (``normalize_gradient: True``):
the unit gradient direction scaled per coordinate by the GP lengthscales ``l``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from isoline.methods.local import GradientLocalBO
from isoline.methods.registry import register
from isoline.validation import check_float, check_int, check_positive

__all__ = ["GIBO"]


@register
class GIBO(GradientLocalBO):
    """GIBO (MinUCB paper Algorithm 3; Mueller et al. 2021).

    Options:
        n_samples: ``b``, gradient-information samples per iteration (default ``d``, the
            reference synthetic setting ``max_samples_per_iteration: dim``).
        delta: half-width of the sampling box around ``x_t`` (default 0.2).
        lr: step length in lengthscale units (default 0.25).
        epsilon: stop sampling once a sample lowers the gradient-covariance trace by less
            than this (``y`` units squared; the reference uses 0.1 on the synthetic
            objectives); ``None`` (default) always takes ``n_samples``.
        See :class:`~isoline.methods.local.LocalBO` for the GP options.

    Typed spaces: the method's theory is continuous, so it searches the relaxed encoding;
    :meth:`~isoline.methods.base.Method.ask` rounds each point to its configuration.
    """

    name = "gibo"
    summary = "local GP gradient descent"
    paper = "Mueller et al., NeurIPS 2021 (GIBO); MinUCB paper Algorithm 3"

    def __init__(
        self,
        dim: int,
        *,
        n_samples: int | None = None,
        delta: float = 0.2,
        lr: float = 0.25,
        epsilon: float | None = None,
        **options: Any,
    ) -> None:
        super().__init__(dim, **options)
        self.n_samples = check_int(dim if n_samples is None else n_samples, "n_samples", 1)
        self.delta = check_float(delta, "delta", 0.0, 1.0, low_open=True)
        self.lr = check_positive(lr, "lr")
        self.epsilon = None if epsilon is None else check_positive(epsilon, "epsilon")

    def _move(self) -> np.ndarray:
        """Line 6: normalized gradient step ``x - lr * l * g / ||g||``."""
        gp = self._fit()
        if gp is None:  # every evaluation failed so far: jump to a random point
            return self.rng.random(self.dim)
        g, _ = gp.gradient_posterior(self.x_t)
        norm = float(np.linalg.norm(g))
        if not np.isfinite(norm) or norm == 0.0:
            return self.x_t
        return self.x_t - self.lr * gp.lengthscales * g / norm
