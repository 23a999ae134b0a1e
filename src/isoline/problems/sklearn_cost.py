"""Tuning for error and cost: hpo-sklearn's HGB problem with a second, deterministic
objective standing in for fit time.

A practitioner tunes a model for error *and* for what it costs to train. Measured fit time
is not a function of the configuration (it moves with the machine's load), so a run could
neither be repeated with the same seed nor resumed exactly. This problem reads the cost
from the fitted models instead: scikit-learn's histogram gradient boosting grows, per
boosting iteration and per tree, a tree of at most ``max_leaf_nodes`` leaves, and the
work of a fit grows roughly with the number of leaves grown times the number of samples
(each split scans the histograms of the samples in its node). On the fixed data of a
problem the number of leaves grown is therefore a deterministic stand-in for fit time; it
ranks configurations by measured fit time closely, though not exactly (binning and
prediction costs do not scale with the leaves).

Objectives, both minimized:

* ``error``: one minus the mean 5-fold cross-validated accuracy on the problem's 80%
  training split (the folds and model settings of ``hpo-sklearn``);
* ``cost``: ``log10`` of the total number of leaves grown by the fitted boosting model,
  averaged over the cross-validation folds.

Reference point (:attr:`SklearnCostHPO.ref_point`): error 1 (accuracy 0), and cost the
``log10`` of the most leaves the space allows (its largest ``max_iter`` times its largest
``max_leaf_nodes`` times the trees per iteration: one for two classes, else one per
class) plus 0.1; every evaluation is strictly better than it in both objectives.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from isoline.objective import Objective
from isoline.params import Integer
from isoline.problems.sklearn_hpo import CV_SPLITS, DATASETS, SklearnHPO, cross_validated
from isoline.validation import check_choice

__all__ = ["COST_MODELS", "SklearnCostHPO", "leaves_grown"]

#: the models whose fitted trees give the cost
COST_MODELS = ("HGB",)
#: the classification data sets
_CLF = tuple(name for name, (_, task) in DATASETS.items() if task == "clf")
#: added to the largest possible cost in the reference point
_COST_MARGIN = 0.1


def leaves_grown(model: Any) -> int:
    """The number of leaves of every tree of a fitted histogram gradient boosting model.

    scikit-learn keeps the trees in the model's ``_predictors`` (one list per boosting
    iteration, one tree per class beyond two); it offers no public count of their leaves.
    """
    return sum(tree.get_n_leaf_nodes() for trees in model._predictors for tree in trees)


class SklearnCostHPO(SklearnHPO):
    """Tune HGB on ``dataset`` for cross-validated error and the leaves grown (both
    minimized); the evaluation is the mapping ``{"error": ..., "cost": ...}``.

    Args:
        dim: ``0`` (or the space's encoded dimension, 6).
        model: one of :data:`COST_MODELS` (``"HGB"``).
        dataset: a classification data set of :data:`~isoline.problems.sklearn_hpo.DATASETS`.
        seed: the data split and the model's ``random_state``.

    Attributes:
        objective: the :class:`~isoline.objective.Objective` of the outputs
            (``error``, ``cost``, minimized).
        ref_point: ``(2,)`` reference point for hypervolumes (module docstring).
        max_hypervolume: ``None`` (the true Pareto front is not known).
    """

    name = "hpo-sklearn-cost"
    description = "HGB tuning for CV error and log10 leaves grown (fit-time stand-in)"
    takes_trial_number: ClassVar[bool] = False

    def __init__(
        self,
        dim: int = 0,
        *,
        model: str = "HGB",
        dataset: str = "breast",
        noise_std: float | str = 0.0,
        seed: int = 0,
    ) -> None:
        check_choice(model, "model of hpo-sklearn-cost", COST_MODELS)
        check_choice(dataset, "dataset of hpo-sklearn-cost (classification)", _CLF)
        super().__init__(dim, model=model, dataset=dataset, metric="acc",
                         noise_std=noise_std, seed=seed)  # fmt: skip
        self.lower_bound = None
        self.objective = Objective(["minimize", "minimize"], ["error", "cost"])
        iters, leaves = (self.typed_space.params[k] for k in ("max_iter", "max_leaf_nodes"))
        assert isinstance(iters, Integer) and isinstance(leaves, Integer)
        n_classes = len(np.unique(self._split()[2]))
        trees = 1 if n_classes == 2 else n_classes
        most = iters.high * leaves.high * trees
        self.ref_point = np.array([1.0, math.log10(most) + _COST_MARGIN])
        self.max_hypervolume: float | None = None

    def outputs(self, x: Any) -> np.ndarray:
        """The ``(2,)`` row ``[error, cost]`` at the configuration ``x``."""
        X_train, _, y_train, _ = self._split()
        fits: list[Any] = []
        scores = cross_validated(self._make(**self.config(x)), X_train, y_train,
                                 "accuracy", CV_SPLITS, self.seed, fitted=fits)  # fmt: skip
        cost = math.log10(float(np.mean([leaves_grown(m) for m in fits])))
        return np.array([1.0 - float(np.mean(scores)), cost])

    def evaluate(self, x: Any) -> tuple[float, dict[str, Any]]:
        raise TypeError(f"problem {self.name!r} has several outputs: call it or use outputs()")

    def noise_free(self, x: Any) -> float:
        """The error at ``x`` (the problem is noise-free)."""
        return float(self.outputs(x)[0])

    def __call__(self, x: Any, number: int | None = None) -> Any:
        """The mapping ``{"error": ..., "cost": ...}`` at the configuration ``x``."""
        return dict(zip(self.objective.names, self.outputs(x).tolist()))
