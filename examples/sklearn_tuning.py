"""Tune a scikit-learn model: maximize its cross-validated accuracy.

A nearest-neighbours classifier on scikit-learn's bundled breast-cancer data, over a typed
space: the number of neighbours (an integer on a log scale), the weighting (a choice) and the
Minkowski power (a real). The objective returns the accuracy itself and
the run maximizes it.

Usage::

    python examples/sklearn_tuning.py
"""

from __future__ import annotations

from typing import Any

from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import cross_val_score
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import isoline as iso

X, y = load_breast_cancer(return_X_y=True)


def accuracy(params: dict[str, Any]) -> float:
    """Mean 5-fold cross-validated accuracy of the model with ``params``."""
    model = make_pipeline(StandardScaler(), KNeighborsClassifier(**params))
    return float(cross_val_score(model, X, y, cv=5).mean())


def main() -> None:
    space = iso.Space(
        {
            "n_neighbors": iso.Integer(1, 50, log=True),
            "weights": iso.Categorical(["uniform", "distance"]),
            "p": iso.Real(1.0, 3.0),
        }
    )
    res = iso.optimize(accuracy, space, direction="maximize", budget=12, seed=0)
    print(f"best accuracy {res.fun:.4f} with {res.x}")
    print(f"method: {res.method} ({res.choice.rule if res.choice else 'named'})")


if __name__ == "__main__":
    main()
