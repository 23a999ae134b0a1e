"""GP-EI for a global search, then one COBYQA run from the best feasible point."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from isoline.methods.cobyqa import COBYQA
from isoline.methods.gp_bo import GPEI
from isoline.methods.registry import register
from isoline.validation import check_float, check_int

__all__ = ["GPEILocal", "local_evaluations"]


def local_evaluations(dim: int, budget: int) -> int:
    """Evaluations left to the local run of a ``budget``-evaluation run in ``dim``
    dimensions: COBYQA's ``2 d + 1`` initial interpolation points and ``2 d`` steps, at
    least a quarter of the budget and at most half of it."""
    return min(max(4 * dim + 1, math.ceil(budget / 4)), budget // 2)


@register
class GPEILocal(GPEI):
    """GP-EI, then a local COBYQA run started at the best feasible point.

    A Bayesian optimizer spends its last evaluations where a local method converges
    faster: once its model has located the basin of the optimum, a trust-region method
    reaches a precision a GP's acquisition search rarely does. McLeod, Osborne and Roberts,
    "Optimization, fast and slow: optimally switching between local and Bayesian
    optimization", ICML 2018, switch from BO to a local optimizer on a regret criterion;
    here the switch comes after a fixed number of evaluations, set from the budget when the
    run has one (:func:`local_evaluations` are left to the local run).

    1. Up to ``local_after`` evaluations told: gp-ei with all its options (initial design,
       model, acquisition, black-box constraints, several objectives).
    2. Then, once a feasible point exists: one :class:`~isoline.methods.cobyqa.COBYQA`
       run (``restarts=False``) from the best feasible point, with initial trust-region
       radius ``local_radius``; COBYQA models the constraints itself. It is told only
       the points it proposed.
    3. When that run has converged, gp-ei again until the budget is spent.

    Batches, pending points, several objectives and spaces with integer or categorical
    parameters (which a continuous trust region does not search) stay with gp-ei
    throughout.

    Options (besides gp-ei's):
        budget: the run's number of evaluations, if known (:func:`isoline.minimize` and
            :class:`~isoline.optimizer.Optimizer` pass theirs). The switch depends on it, so
            a stored study resumes only with the budget it was created with.
        local_after: evaluations told before the local run may start; default ``budget``
            less :func:`local_evaluations`, or ``10 d`` without a budget.
        local_radius: the local run's initial trust-region radius in unit-cube
            coordinates (default 0.1).
    """

    name = "gp-ei-cobyqa"
    summary = "GP log EI, then COBYQA from the best point"
    paper = "Jones et al., J. Glob. Optim. 1998; McLeod et al., ICML 2018; Ragonneau & Zhang 2022"
    takes_budget = True

    def __init__(
        self,
        dim: int,
        *,
        budget: int | None = None,
        local_after: int | None = None,
        local_radius: float = 0.1,
        **options: Any,
    ) -> None:
        super().__init__(dim, **options)
        self.budget = None if budget is None else check_int(budget, "budget", 1)
        default = 10 * self.dim
        if self.budget is not None:
            default = self.budget - local_evaluations(self.dim, self.budget)
        self.local_after = (
            default if local_after is None else check_int(local_after, "local_after", 0)
        )
        self.local_radius = check_float(local_radius, "local_radius", 0.0, 0.5, low_open=True)
        #: the local run, once started
        self.local: COBYQA | None = None

    def propose(self, q: int) -> np.ndarray:
        x = self._local_step(q)
        return super().propose(q) if x is None else x

    def _local_step(self, q: int) -> np.ndarray | None:
        """The local run's next point, or ``None`` when gp-ei proposes."""
        if q != 1 or len(self.pending()) or len(self.Y) < self.local_after:
            return None
        if self.n_objectives > 1 or (self.space is not None and self.space.discrete):
            return None
        if self.local is None:
            best = self.best
            if best is None:  # nothing feasible yet: the global search goes on
                return None
            self.local = COBYQA(
                self.dim, seed=self.seed, n_init=0, space=self.space,
                n_constraints=self.n_constraints, radius=self.local_radius,
                x0=[float(v) for v in best[0]], restarts=False,
            )  # fmt: skip
        if self.local.ended:
            return None
        x = self.local.ask(1)
        if self.local.ended:  # converged: its random point is not used
            self.local.withdraw(x)
            return None
        return x

    def observe(self, X: np.ndarray, y: np.ndarray) -> None:
        super().observe(X, y)
        if self.local is None:
            return
        waiting = {r.tobytes() for r in self.local.pending()}
        for x, row in zip(X, self.Y[len(self.Y) - len(X) :]):
            if x.tobytes() in waiting:
                self.local.tell(x[None], row[None])
