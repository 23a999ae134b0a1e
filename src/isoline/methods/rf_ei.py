"""Random-forest EI (SMAC-like): the NeuralBO paper's random-forest baseline (§7).

One proposal, following SMAC3's hyperparameter-optimization facade (Hutter et al. 2011;
SMAC3, Lindauer et al., JMLR 2022):

1. Surrogate: :class:`isoline.models.forest.RandomForestSurrogate` (10 trees; mean and
   variance across trees, Hutter et al. 2011 §4.1), fitted to log-scaled costs
   (:func:`isoline.models.forest.log_scale`, as SMAC3's ``RunHistoryLogScaledEncoder``).
2. Acquisition: log-EI, the expected improvement of the unscaled cost below
   ``exp(eta)``, ``eta`` = lowest predicted log cost among the evaluated points
   (:func:`isoline.models.forest.log_expected_improvement`; SMAC3 ``EI(log=True)``).
3. Maximization, SMAC's "local and sorted random search" (Hutter et al. 2011 §4.3):
   ``n_random`` uniform candidates are scored; local searches start from the ``n_local``
   evaluated points with the lowest predicted cost and from the ``n_local`` best random
   candidates. A local search looks at one-exchange neighbours (one coordinate redrawn from
   a normal of s.d. 0.2 around its value, truncated to ``[0, 1]``, as ConfigSpace does for
   continuous parameters), moves to the best one when it is strictly better, and otherwise
   stops (a local optimum, as in the original SMAC). With ``plateau_steps > 0`` it instead
   walks onto an equal neighbour, if any, and draws a fresh neighbourhood, up to
   ``plateau_steps`` times (SMAC3's plateau walks, ``n_steps_plateau_walk``).
4. The candidate with the highest log-EI is proposed. Points already evaluated (or already
   in the batch) are never proposed again -- SMAC does not re-run a configuration on a
   deterministic target. A forest is piecewise constant, so the maximum is often a plateau;
   ties go to the end points of the local searches, most of which lie next to evaluated
   points where the forest interpolates, rather than to random candidates in regions it
   merely extrapolates to (the NeuralBO paper, §2, notes random forests' trouble with
   extrapolation). Remaining ties are broken at random.

Departures from SMAC3's defaults, each chosen on benchmark evidence: no random interleaving
(``random_fraction`` 0 instead of 0.2: at budgets of tens of evaluations a fifth of them
spent uniformly at random cost more than they protect), no plateau walks (SMAC3: 10;
walks scatter the proposals across a flat cell of the forest), and the tie rule of
step 4 (SMAC3 lists random candidates first among equals).

Batches: "kriging believer" -- after each chosen point the forest is refitted with the
point's predicted log cost as a fake observation, and the next point is chosen.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from scipy.stats import truncnorm

from isoline.methods.base import Method
from isoline.methods.registry import register
from isoline.models.forest import (
    RandomForestSurrogate,
    expected_improvement,
    log_expected_improvement,
    log_scale,
)
from isoline.validation import check_bool, check_float, check_int

__all__ = ["RandomForestEI"]

#: s.d. of a one-exchange neighbour in the unit interval (ConfigSpace's value)
_NEIGHBOUR_SD = 0.2
#: neighbours per local-search step: 4 per coordinate (ConfigSpace), at most this many
_MAX_NEIGHBOURS = 64
#: safety cap on local-search steps (each strict improvement is one step)
_MAX_STEPS = 100

Acquisition = Callable[[np.ndarray], np.ndarray]


@register
class RandomForestEI(Method):
    """SMAC-style random forest with log-EI and local search; see the module docstring.

    Options:
        n_estimators: trees (10, as SMAC3; GPyOpt, which the NeuralBO paper ran, uses 1000).
        n_random: random candidates per acquisition search (5000).
        n_local: local searches from evaluated points, and as many from the best random
            candidates (10, SMAC3's ``local_search_iterations``).
        plateau_steps: plateau walks per local search (0, the original SMAC's local search;
            SMAC3: 10).
        random_fraction: probability that a point is drawn uniformly at random instead
            (0; SMAC3's hyperparameter-optimization facade: 0.2).
        log_cost: fit log-scaled costs and use log-EI (True, SMAC3); False fits the raw
            costs and uses plain EI.
    """

    name = "rf-ei"
    summary = "random forest, log-EI (SMAC)"
    family = "tree"
    paper = "Hutter et al., LION 2011 (SMAC); NeuralBO paper §7"

    def __init__(
        self,
        dim: int,
        *,
        n_estimators: int = 10,
        n_random: int = 5000,
        n_local: int = 10,
        plateau_steps: int = 0,
        random_fraction: float = 0.0,
        log_cost: bool = True,
        **common: Any,
    ) -> None:
        self.n_estimators = check_int(n_estimators, "n_estimators", 1)
        self.n_random = check_int(n_random, "n_random", 1)
        self.n_local = check_int(n_local, "n_local", 0)
        self.plateau_steps = check_int(plateau_steps, "plateau_steps", 0)
        self.random_fraction = check_float(random_fraction, "random_fraction", 0.0, 1.0)
        self.log_cost = check_bool(log_cost, "log_cost")
        super().__init__(dim, **common)

    def propose(self, q: int) -> np.ndarray:
        X, y = self.data()
        z = log_scale(y) if self.log_cost else _standardized(y)
        seen = {x.tobytes() for x in X}
        out = np.empty((q, self.dim))
        for j in range(q):
            if self.random_fraction > 0 and self.rng.random() < self.random_fraction:
                out[j] = self.rng.random(self.dim)  # SMAC's interleaved random point
            else:
                forest = RandomForestSurrogate(
                    n_estimators=self.n_estimators, seed=int(self.rng.integers(2**31))
                ).fit(X, z)
                out[j] = self._maximize(forest, X, seen)
                mean, _ = forest.predict(out[j : j + 1])
                X, z = np.vstack([X, out[j]]), np.append(z, mean)  # kriging believer
            seen.add(out[j].tobytes())
        return out

    # -- acquisition maximization (step 3-4) ---------------------------------------------
    def _maximize(
        self, forest: RandomForestSurrogate, X: np.ndarray, seen: set[bytes]
    ) -> np.ndarray:
        """Point of highest acquisition value (ties: local search first, then random)."""
        pred_obs, _ = forest.predict(X)
        eta = float(np.min(pred_obs))
        ei = log_expected_improvement if self.log_cost else expected_improvement

        def acq(P: np.ndarray) -> np.ndarray:
            v = ei(*forest.predict(P), eta)
            for i, p in enumerate(P):  # never propose an evaluated point again
                if p.tobytes() in seen:
                    v[i] = -np.inf
            return v

        R = self.rng.random((self.n_random, self.dim))
        r_val = acq(R)
        # starts: evaluated points of lowest predicted cost, then the best random candidates
        by_cost = np.lexsort((self.rng.random(len(X)), pred_obs))[: self.n_local]
        by_acq = np.lexsort((self.rng.random(len(R)), -r_val))[: self.n_local]
        L, l_val = self._local_search(acq, np.vstack([X[by_cost], R[by_acq]]))
        return self._select([(L, l_val), (R, r_val)])

    def _select(self, groups: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
        """A point of highest value; ties go to the earliest group holding the maximum,
        then at random. ``groups``: ``(points (k, d), values (k,))`` pairs."""
        top = max(float(np.max(v)) for _, v in groups if v.size)
        for P, vals in groups:
            best = np.flatnonzero(vals == top)
            if best.size:
                return P[int(self.rng.choice(best))].copy()
        raise ValueError("groups hold no values")

    def _local_search(self, acq: Acquisition, starts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """SMAC-style local searches from ``starts`` ``(s, d)``; end points and values."""
        cur = starts.copy()
        val = acq(cur)
        active = np.ones(len(cur), dtype=bool)
        walks = np.zeros(len(cur), dtype=int)
        k = min(4 * self.dim, _MAX_NEIGHBOURS)
        for _ in range(_MAX_STEPS):
            idx = np.flatnonzero(active)
            if idx.size == 0:
                break
            nb = self._neighbours(cur[idx], k)  # (a, k, d)
            nv = acq(nb.reshape(-1, self.dim)).reshape(len(idx), k)
            for a, i in enumerate(idx):
                j = int(np.argmax(nv[a]))
                if nv[a, j] > val[i]:  # strict improvement: move
                    cur[i], val[i] = nb[a, j], nv[a, j]
                    continue
                if walks[i] >= self.plateau_steps:
                    active[i] = False  # no better neighbour and the walk budget is spent
                    continue
                walks[i] += 1  # plateau walk: onto an equal neighbour if any, else resample
                equal = np.flatnonzero(nv[a] == val[i])
                if equal.size:
                    cur[i] = nb[a, int(self.rng.choice(equal))]
        return cur, val

    def _neighbours(self, P: np.ndarray, k: int) -> np.ndarray:
        """``k`` one-exchange neighbours of each row of ``P`` ``(a, d)``: ``(a, k, d)``."""
        a, d = P.shape
        nb = np.repeat(P[:, None, :], k, axis=1)
        coord = self.rng.integers(d, size=(a, k))
        rows = np.arange(a)[:, None]
        centre = nb[rows, np.arange(k)[None, :], coord]
        lo, hi = (0.0 - centre) / _NEIGHBOUR_SD, (1.0 - centre) / _NEIGHBOUR_SD
        new = truncnorm.rvs(lo, hi, loc=centre, scale=_NEIGHBOUR_SD, random_state=self.rng)
        nb[rows, np.arange(k)[None, :], coord] = np.clip(new, 0.0, 1.0)
        return nb


def _standardized(y: np.ndarray) -> np.ndarray:
    """``(y - mean) / std`` (``y - mean`` if constant): the forest, its variance floor and
    EI then act alike at every scale of the objective; EI's ranking is unchanged."""
    sd = float(np.std(y))
    return (y - np.mean(y)) / (sd if sd > 0 else 1.0)
