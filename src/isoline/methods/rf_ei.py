"""Random-forest EI (SMAC-like): the NeuralBO paper's random-forest baseline (§7).

Surrogate: :class:`isoline.models.forest.RandomForestSurrogate` (scikit-learn forest; mean
and variance across trees, Hutter et al. 2011 §4.1). Acquisition: expected improvement
below the best observation, maximized as SMAC does by interleaving random and local
search (Hutter et al. 2011 §4.3): ``n_random`` uniform points plus the ``n_local`` best
observations form a pool; for ``local_rounds`` rounds the ``n_local`` best pool points
spawn 50 Gaussian neighbours each, with step 0.1 halved every round. As SMAC3's
hyperparameter-optimization facade (``ProbabilityRandomDesign``), each point is instead
drawn uniformly at random with probability ``random_fraction`` (0.2), so that the search
cannot lock onto a region the forest mispredicts.

Batches: "kriging believer" -- after each chosen point the forest is refitted with the
point's predicted mean as a fake observation, and the next point is chosen.
"""

from __future__ import annotations

import numpy as np

from isoline.methods.base import Method
from isoline.methods.neuralbo import check_count
from isoline.models.forest import RandomForestSurrogate, expected_improvement
from isoline.registry import register

__all__ = ["RandomForestEI"]

_NEIGHBOURS = 50
_STEP0 = 0.1


@register
class RandomForestEI(Method):
    """SMAC-style random forest with expected improvement; see the module docstring.

    Options:
        n_estimators: trees (10, as SMAC3; GPyOpt, which the NeuralBO paper ran, uses 1000).
        n_random: random points per acquisition search (5000).
        n_local: starts of the local search (10).
        local_rounds: rounds of neighbourhood search (5).
        random_fraction: probability that a point is uniform random (0.2, SMAC3).
    """

    name = "rf-ei"
    family = "tree"
    paper = "Hutter et al., LION 2011 (SMAC); NeuralBO paper §7"

    def __init__(
        self,
        dim: int,
        *,
        n_estimators: int = 10,
        n_random: int = 5000,
        n_local: int = 10,
        local_rounds: int = 5,
        random_fraction: float = 0.2,
        **common: object,
    ) -> None:
        self.n_estimators = check_count(n_estimators, "n_estimators", 1)
        self.n_random = check_count(n_random, "n_random", 1)
        self.n_local = check_count(n_local, "n_local", 1)
        self.local_rounds = check_count(local_rounds, "local_rounds", 0)
        if isinstance(random_fraction, bool) or not isinstance(random_fraction, (int, float)) \
                or not 0 <= random_fraction <= 1:
            raise ValueError(f"random_fraction must be a number in [0, 1], got {random_fraction!r}")
        self.random_fraction = float(random_fraction)
        super().__init__(dim, **common)  # type: ignore[arg-type]

    def propose(self, q: int) -> np.ndarray:
        X, y = self.data()
        out = np.empty((q, self.dim))
        for j in range(q):
            if self.rng.random() < self.random_fraction:  # SMAC's interleaved random point
                out[j] = self.rng.random(self.dim)
                continue
            forest = RandomForestSurrogate(
                n_estimators=self.n_estimators, seed=int(self.rng.integers(2**31))
            ).fit(X, y)
            out[j] = self._maximize_ei(forest, X, y, out[:j])
            mean, _ = forest.predict(out[j : j + 1])
            X, y = np.vstack([X, out[j]]), np.append(y, mean)  # kriging believer
        return out

    def _maximize_ei(
        self, forest: RandomForestSurrogate, X: np.ndarray, y: np.ndarray, taken: np.ndarray
    ) -> np.ndarray:
        best = float(np.min(y))

        def ei(P: np.ndarray) -> np.ndarray:
            v = expected_improvement(*forest.predict(P), best)
            for x in taken:  # never repeat a point of this batch
                v[np.all(P == x, axis=1)] = -np.inf
            return v

        pool = np.vstack([self.rng.random((self.n_random, self.dim)),
                          X[np.argsort(y, kind="stable")[: self.n_local]]])
        vals = ei(pool)
        for r in range(self.local_rounds):
            top = pool[np.argsort(-vals, kind="stable")[: self.n_local]]
            step = _STEP0 * 0.5**r
            nb = top[:, None, :] + step * self.rng.standard_normal((len(top), _NEIGHBOURS, self.dim))
            nb = np.clip(nb, 0.0, 1.0).reshape(-1, self.dim)
            pool, vals = np.vstack([pool, nb]), np.concatenate([vals, ei(nb)])
        return pool[int(np.argmax(vals))]
