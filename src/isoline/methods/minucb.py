"""MinUCB: local BO by minimizing the UCB (Fan et al., NeurIPS 2024, Algorithm 1).

For minimization, with ``UCB(x) = mu_D(x) + beta sigma_D(x)`` (paper eq. (3)):

    for t = 1, 2, ...
        X1 = [x_t, ..., x_t]  (b1 times)                          line 3: resample x_t
        X2 = argmin_Z alpha_trace(x_t, Z), Z: b2 points in x_t +- delta   line 4 (greedy)
        evaluate f on [X1; X2]; D_t = D_{t-1} + (X, y)            lines 5-7
        x_{t+1} = argmin_x mu_{D_t}(x) + beta sigma_{D_t}(x)      line 8

The sampling is GIBO's (:class:`isoline.methods.gibo.GIBO`); only the move differs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from isoline.methods.local import GradientLocalBO
from isoline.methods.registry import register
from isoline.methods.ucb_move import minimize_ucb
from isoline.validation import check_float, check_int, check_positive

__all__ = ["MinUCB"]


@register
class MinUCB(GradientLocalBO):
    """MinUCB (MinUCB paper Algorithm 1).

    Options:
        beta: UCB weight on ``sigma`` (default 3, the paper's experiments), ``> 0``.
        b1: evaluations of ``x_t`` per iteration (line 3; default 1).
        b2: gradient-information samples per iteration (line 4; default ``d`` as GIBO).
        delta: half-width of the sampling box around ``x_t`` (default 0.2).
        See :class:`~isoline.methods.local.LocalBO` for the GP options.

    Typed spaces: the method's theory is continuous, so it searches the relaxed encoding;
    :meth:`~isoline.methods.base.Method.ask` rounds each point to its configuration.
    """

    name = "minucb"
    summary = "local GP, minimizes the UCB"
    paper = "Fan et al., NeurIPS 2024 (MinUCB, Algorithm 1)"

    def __init__(
        self,
        dim: int,
        *,
        beta: float = 3.0,
        b1: int = 1,
        b2: int | None = None,
        delta: float = 0.2,
        **options: Any,
    ) -> None:
        super().__init__(dim, **options)
        self.beta = check_positive(beta, "beta")
        self.n_repeat = check_int(b1, "b1", 1)
        self.n_samples = check_int(dim if b2 is None else b2, "b2", 1)
        self.delta = check_float(delta, "delta", 0.0, 1.0, low_open=True)

    def _move(self) -> np.ndarray:
        """Line 8: ``argmin_x mu(x) + beta sigma(x)``."""
        gp = self._fit()
        if gp is None:  # every evaluation failed so far: jump to a random point
            return self.rng.random(self.dim)
        return minimize_ucb(
            gp, self.beta, self._anchors(gp), self.delta, self._seed(), self.num_restarts,
            self.raw_samples,
        )  # fmt: skip
