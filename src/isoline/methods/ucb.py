"""The exploration-weight options shared by the GP-UCB family (gp-ucb, gp-bucb, gp-ucb-pe)."""

from __future__ import annotations

from typing import Any

from isoline.methods.base import Method
from isoline.ucb_weights import check_ucb_beta, ucb_beta

__all__ = ["UCBWeight"]


class UCBWeight(Method):
    """Mixin declaring ``beta`` and ``delta``; put it before the family base class.

    Options:
        beta: ``"srinivas"`` for the schedule ``beta_t = 2 log(d t^2 pi^2 / (6 delta))``
            (Srinivas, Krause, Kakade & Seeger, "Gaussian process optimization in the bandit
            setting: no regret and experimental design", ICML 2010, Theorem 1, with ``|D|``
            replaced by ``d``), or a constant ``> 0``. The UCB is ``mu - sqrt(beta) sigma``
            for minimization.
        delta: confidence parameter of the schedule, in ``(0, 1)``.
    """

    def __init__(
        self, dim: int, *, beta: float | str = "srinivas", delta: float = 0.1, **options: Any
    ) -> None:
        super().__init__(dim, **options)
        self.beta, self.delta = check_ucb_beta(beta, delta)

    def beta_at(self, t: int) -> float:
        """``beta_t`` for the ``t``-th evaluation (``t >= 1``)."""
        return ucb_beta(self.beta, t, self.dim, self.delta)
