"""The Kriging believer: a batch (or the next point while others are pending) from one GP.

D. Ginsbourger, R. Le Riche and L. Carraro, "Kriging is well-suited to parallelize
optimization", Computational Intelligence in Expensive Optimization Problems, Springer
2010. Each point maximizes the analytic log EI of the GP conditioned on the pending and
already chosen points at their posterior mean; a believed value counts as observed, in the
model and in the incumbent EI improves on, so a point believed better than the best value
is not proposed again.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from botorch.acquisition import AcquisitionFunction

from isoline.acquisition import RelativeFloorLogEI
from isoline.models.gp import GP

__all__ = ["kriging_believer"]


def kriging_believer(
    gp: GP,
    best: float,
    q: int,
    pending: np.ndarray,
    maximize: Callable[[AcquisitionFunction, np.ndarray], np.ndarray],
) -> np.ndarray:
    """``(q, d)`` points for the GP ``gp`` (minimized; ``best``: the best observed value in
    its ``y`` units) while the ``(m, d)`` unit-cube points ``pending`` are being evaluated.

    ``maximize(acqf, believed)`` returns the ``(1, d)`` maximizer of ``acqf``, avoiding the
    ``(k, d)`` points ``believed`` (pending and chosen so far) besides the evaluated ones.
    """
    believed = np.asarray(pending, dtype=float).reshape(-1, gp.dim)
    for _ in range(q):
        g, incumbent = gp, best
        if len(believed):
            values = gp.posterior(believed)[0]
            g, incumbent = gp.condition_on(believed, values), min(best, float(values.min()))
        acqf = RelativeFloorLogEI(g.model, best_f=incumbent, maximize=False)
        believed = np.vstack([believed, maximize(acqf, believed)])
    return believed[len(believed) - q :]
