"""Random-forest surrogate with SMAC's uncertainty estimate, and expected improvement.

Hutter, Hoos & Leyton-Brown, "Sequential model-based optimization for general algorithm
configuration" (SMAC), LION 2011, §4.1: the predictive mean and variance at ``x`` are the
empirical mean and variance of the individual trees' predictions. The forest is
scikit-learn's ``RandomForestRegressor`` with the defaults of SMAC3's
hyperparameter-optimization facade (10 trees, bootstrap, all features per split, at least
2 samples to split and 1 per leaf).
"""

from __future__ import annotations

import numpy as np
from scipy.stats import norm
from sklearn.ensemble import RandomForestRegressor

__all__ = ["RandomForestSurrogate", "expected_improvement"]

#: variance floor (in squared units of y) so EI stays defined where all trees agree
_MIN_VAR = 1e-12


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


def expected_improvement(mean: np.ndarray, var: np.ndarray, best: float) -> np.ndarray:
    """EI for minimization: ``E[max(best - f, 0)]``, ``f ~ N(mean, var)`` (Jones et al. 1998).

    ``EI = (best - mean) Phi(z) + s phi(z)``, ``z = (best - mean) / s``, ``s = sqrt(var)``.
    """
    s = np.sqrt(np.maximum(var, _MIN_VAR))
    z = (best - mean) / s
    return (best - mean) * norm.cdf(z) + s * norm.pdf(z)
