"""Random-forest surrogate with SMAC's uncertainty estimate, log-scaled costs and (log-)EI.

Hutter, Hoos & Leyton-Brown, "Sequential model-based optimization for general algorithm
configuration" (SMAC), LION 2011, §4.1: the predictive mean and variance at ``x`` are the
empirical mean and variance of the individual trees' predictions. The forest is
scikit-learn's ``RandomForestRegressor`` with the defaults of SMAC3's
hyperparameter-optimization facade (10 trees, bootstrap, all features per split, at least
2 samples to split and 1 per leaf).

SMAC3's hyperparameter-optimization facade also fits the forest to *log-scaled* costs
(:func:`log_scale`, SMAC3's ``RunHistoryLogScaledEncoder``) and maximizes the expected
improvement of the *unscaled* cost under the resulting log-normal predictive distribution
(:func:`log_expected_improvement`; Hutter, Hoos, Leyton-Brown & Murphy, "An experimental
investigation of model-based parameter optimisation: SPO and beyond", GECCO 2009, §4.3).
"""

from __future__ import annotations

import numpy as np
from scipy.stats import norm
from sklearn.ensemble import RandomForestRegressor

__all__ = [
    "RandomForestSurrogate",
    "expected_improvement",
    "log_expected_improvement",
    "log_scale",
]

#: variance floor (in squared units of y) so EI stays defined where all trees agree
_MIN_VAR = 1e-12
#: SMAC3's ``constants.VERY_SMALL_NUMBER``, relative to the cost range here
_TINY = 1e-10


class RandomForestSurrogate:
    """SMAC-style random forest: ``fit(X, y)``, ``predict(X) -> (mean, var)``.

    Args:
        n_estimators: trees (SMAC3: 10).
        max_features: fraction of features tried per split (SMAC3: 1.0).
        min_samples_split, min_samples_leaf: SMAC3: 2 and 1.
        seed: ``random_state`` of the forest.
    """

    def __init__(
        self,
        *,
        n_estimators: int = 10,
        max_features: float = 1.0,
        min_samples_split: int = 2,
        min_samples_leaf: int = 1,
        seed: int = 0,
    ) -> None:
        self.forest = RandomForestRegressor(
            n_estimators=n_estimators,
            max_features=max_features,
            min_samples_split=min_samples_split,
            min_samples_leaf=min_samples_leaf,
            bootstrap=True,
            random_state=seed,
            n_jobs=1,
        )

    def fit(self, X: np.ndarray, y: np.ndarray) -> RandomForestSurrogate:
        """Fit on ``X`` ``(n, d)`` and finite ``y`` ``(n,)``."""
        self.forest.fit(np.asarray(X, dtype=float), np.asarray(y, dtype=float))
        return self

    def predict(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(mean (n,), var (n,))`` across the trees' predictions at ``X`` ``(n, d)``."""
        X32 = np.ascontiguousarray(X, dtype=np.float32)  # the trees' own input type
        per_tree = np.stack(
            [t.predict(X32, check_input=False) for t in self.forest.estimators_]
        )  # (trees, n)
        return per_tree.mean(0), np.maximum(per_tree.var(0), _MIN_VAR)


def log_scale(y: np.ndarray) -> np.ndarray:
    """SMAC3's log-scaled costs: ``log((y - c) / (max y - c))`` for ``y`` ``(n,)``.

    ``c = min y - (p5 - min y) - tiny`` with ``p5`` the 5th percentile of ``y``, so the
    best cost maps to a finite, strongly negative value and the worst to 0 (SMAC3
    ``RunHistoryLogScaledEncoder``). A constant ``y`` maps to zeros.
    """
    y = np.asarray(y, dtype=float)
    lo, hi = float(np.min(y)), float(np.max(y))
    if hi == lo:
        return np.zeros_like(y)
    c = lo - (float(np.percentile(y, 5)) - lo) - _TINY * (hi - lo)
    return np.log((y - c) / (hi - c))


def expected_improvement(mean: np.ndarray, var: np.ndarray, best: float) -> np.ndarray:
    """EI for minimization: ``E[max(best - f, 0)]``, ``f ~ N(mean, var)`` (Jones et al. 1998).

    ``EI = (best - mean) Phi(z) + s phi(z)``, ``z = (best - mean) / s``, ``s = sqrt(var)``.
    """
    s = np.sqrt(np.maximum(var, _MIN_VAR))
    z = (best - mean) / s
    return (best - mean) * norm.cdf(z) + s * norm.pdf(z)


def log_expected_improvement(mean: np.ndarray, var: np.ndarray, eta: float) -> np.ndarray:
    """EI of ``exp(f)`` below ``exp(eta)`` when ``f ~ N(mean, var)`` models a log cost.

    ``E[max(e^eta - e^f, 0)] = e^eta Phi(v) - e^(mean + var/2) Phi(v - s)``,
    ``v = (eta - mean) / s`` (SMAC3 ``EI(log=True)``; Hutter et al. 2009, §4.3). Values
    ``(n,)``, clipped at 0 against rounding.
    """
    s = np.sqrt(np.maximum(var, _MIN_VAR))
    v = (eta - mean) / s
    ei = np.exp(eta) * norm.cdf(v) - np.exp(mean + 0.5 * s**2) * norm.cdf(v - s)
    return np.maximum(ei, 0.0)
