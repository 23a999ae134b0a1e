"""Hyperparameter tuning of scikit-learn models on its bundled data sets, as in bayesmark.

bayesmark (Uber's benchmark of the NeurIPS 2020 black-box optimization challenge; Turner
et al., "Bayesian optimization is superior to random search for machine learning
hyperparameter tuning", PMLR 133, 2021) tunes nine scikit-learn models on small data sets
and scores each configuration by 5-fold cross-validation. Its package no longer imports
on current scikit-learn, so this module rebuilds its design:

* models ``kNN, SVM, DT, RF, MLP-adam, MLP-sgd, ada, lasso, linear`` with bayesmark's
  search spaces (integers, log and logit scales; booleans as two-way categoricals);
* data sets ``digits, wine, breast, iris`` (classification; metrics ``acc``, ``nll``) and
  ``diabetes`` (regression; ``mse``, ``mae``), shuffled and split 80/20 by the seed;
* the objective is the negated mean 5-fold cross-validated score on the 80% (a loss, to
  minimize); the info dict holds the loss on the held-out 20% (``generalization``).

Differences from bayesmark, forced by current scikit-learn or chosen for reproducibility:
the regressors' ``normalize`` option no longer exists and is left out; every model with
randomness gets ``random_state=seed`` (bayesmark left it unseeded), so the objective is a
deterministic function of the configuration; the ``lasso``/``linear`` classifiers are
liblinear logistic regressions with ``l1_ratio`` 1 / 0 (scikit-learn's replacement of
``penalty``) wrapped one-vs-rest, as bayesmark's ``multi_class="ovr"``; SVC computes probabilities only for the
``nll`` metric.

``logit=False`` puts the parameters bayesmark scales by logit on a linear scale, the
presentation every peer optimizer sees (none offers a logit scale).

``relaxed=True`` presents the same problem on the continuous unit cube of the space's
encoding: the objective decodes (rounds) each point itself, which is how a method without
typed parameters would have to run it.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from isoline.params import Categorical, Integer, Real, Space
from isoline.problems.base import TypedProblem
from isoline.space import Box
from isoline.validation import check_bool, check_choice

__all__ = ["DATASETS", "MODELS", "SklearnHPO", "cross_validated", "model_space", "quiet_fits"]

#: data set -> (loader name in sklearn.datasets, task)
DATASETS: dict[str, tuple[str, str]] = {
    "digits": ("load_digits", "clf"),
    "wine": ("load_wine", "clf"),
    "breast": ("load_breast_cancer", "clf"),
    "iris": ("load_iris", "clf"),
    "diabetes": ("load_diabetes", "reg"),
}
METRICS = {"clf": ("acc", "nll"), "reg": ("mse", "mae")}
_SCORERS = {
    "acc": "accuracy",
    "nll": "neg_log_loss",
    "mse": "neg_mean_squared_error",
    "mae": "neg_mean_absolute_error",
}
#: bayesmark's nine models, then HGB (scikit-learn's histogram gradient boosting, not one
#: of bayesmark's: a tuning problem outside the nine the auto rules were measured on)
MODELS = ("kNN", "SVM", "DT", "RF", "MLP-adam", "MLP-sgd", "ada", "lasso", "linear", "HGB")
CV_SPLITS = 5


@contextlib.contextmanager
def quiet_fits(seed: int) -> Iterator[None]:
    """Fit scikit-learn models on one thread (OpenMP and BLAS pools too, through
    threadpoolctl: HGB's OpenMP threads crowd a loaded machine), torch's RNG seeded by
    ``seed``, and their warnings silenced (a convergence warning is part of the
    landscape, not a failure)."""
    from threadpoolctl import threadpool_limits

    from isoline.problems.hpo import seeded_single_thread

    with warnings.catch_warnings(), seeded_single_thread(seed), threadpool_limits(1):
        warnings.simplefilter("ignore")
        yield


def cross_validated(
    estimator: Any,
    X: Any,
    y: Any,
    scoring: Any,
    cv: Any,
    seed: int,
    fitted: list[Any] | None = None,
) -> np.ndarray:
    """``(k,)`` scores of ``estimator`` on the ``k`` folds ``cv`` of ``X, y`` (scikit-learn's
    ``cross_validate``), fitted under :func:`quiet_fits`.

    ``fitted``: a list that receives the ``k`` fitted estimators, one per fold, in order.
    """
    from sklearn.model_selection import cross_validate

    with quiet_fits(seed):
        out = cross_validate(
            estimator, X, y, scoring=scoring, cv=cv, return_estimator=fitted is not None
        )
    if fitted is not None:
        fitted.extend(out["estimator"])
    return np.asarray(out["test_score"])


def _tree(ratio: Callable[[float, float], Real]) -> dict[str, Any]:
    return {
        "max_depth": Integer(1, 15),
        "min_samples_split": ratio(0.01, 0.99),
        "min_samples_leaf": ratio(0.01, 0.49),
        "min_weight_fraction_leaf": ratio(0.01, 0.49),
        "max_features": ratio(0.01, 0.99),
        "min_impurity_decrease": Real(0.0, 0.5),
    }


def _mlp(solver: str, ratio: Callable[[float, float], Real]) -> dict[str, Any]:
    common = {
        "hidden_layer_sizes": Integer(50, 200),
        "alpha": Real(1e-5, 1e1, log=True),
        "batch_size": Integer(10, 250),
        "learning_rate_init": Real(1e-5, 1e-1, log=True),
    }
    if solver == "adam":
        return {
            **common,
            "tol": Real(1e-5, 1e-1, log=True),
            "validation_fraction": ratio(0.1, 0.9),
            "beta_1": ratio(0.5, 0.99),
            "beta_2": ratio(0.9, 1.0 - 1e-6),
            "epsilon": Real(1e-9, 1e-6, log=True),
        }
    return {
        **common,
        "power_t": ratio(0.1, 0.9),
        "tol": Real(1e-5, 1e-1, log=True),
        "momentum": ratio(0.001, 0.999),
        "validation_fraction": ratio(0.1, 0.9),
    }


def model_space(model: str, task: str, logit: bool = True) -> Space:
    """bayesmark's search space of ``model`` for ``task`` (``"clf"`` or ``"reg"``).

    ``logit=False``: the reals bayesmark scales by logit are linear instead.
    """
    check_choice(model, "model", MODELS)

    def ratio(low: float, high: float) -> Real:
        return Real(low, high, logit=logit)

    flag = Categorical([False, True])
    params: dict[str, Any]
    if model == "kNN":
        params = {"n_neighbors": Integer(1, 25), "p": Integer(1, 4)}
    elif model == "SVM":
        params = {
            "C": Real(1.0, 1e3, log=True),
            "gamma": Real(1e-4, 1e-3, log=True),
            "tol": Real(1e-5, 1e-1, log=True),
        }
    elif model in ("DT", "RF"):
        params = _tree(ratio)
    elif model in ("MLP-adam", "MLP-sgd"):
        params = _mlp("adam" if model == "MLP-adam" else "sgd", ratio)
    elif model == "ada":
        params = {"n_estimators": Integer(10, 100), "learning_rate": Real(1e-4, 1e1, log=True)}
    elif model == "HGB":
        params = {
            "learning_rate": Real(1e-3, 1.0, log=True),
            "max_iter": Integer(10, 100),
            "max_leaf_nodes": Integer(4, 64, log=True),
            "min_samples_leaf": Integer(1, 100, log=True),
            "l2_regularization": Real(1e-6, 1e1, log=True),
            "max_features": Real(0.1, 1.0),
        }
    elif task == "clf":  # lasso and linear classifiers: logistic regression
        params = {
            "C": Real(1e-2, 1e2, log=True),
            "intercept_scaling": Real(1e-2, 1e2, log=True),
        }
    else:
        params = {
            "alpha": Real(1e-2, 1e2, log=True),
            "fit_intercept": flag,
            "max_iter": Integer(10, 5000, log=True),
            "tol": Real(1e-5 if model == "lasso" else 1e-4, 1e-1, log=True),
        }
        if model == "lasso":
            params["positive"] = flag
    return Space(params)


def _estimator(model: str, task: str, metric: str, seed: int) -> Callable[..., Any]:
    """A factory ``f(**config)`` of the scikit-learn estimator with the fixed settings."""
    from sklearn import ensemble, linear_model, neighbors, neural_network, svm, tree

    clf = task == "clf"
    if model == "kNN":
        return neighbors.KNeighborsClassifier if clf else neighbors.KNeighborsRegressor
    if model == "SVM":
        if clf:
            return lambda **c: svm.SVC(
                kernel="rbf", probability=metric == "nll", random_state=seed, **c
            )
        return lambda **c: svm.SVR(kernel="rbf", **c)
    if model == "DT":
        cls = tree.DecisionTreeClassifier if clf else tree.DecisionTreeRegressor
        return lambda **c: cls(random_state=seed, **c)
    if model == "RF":
        cls = ensemble.RandomForestClassifier if clf else ensemble.RandomForestRegressor
        return lambda **c: cls(n_estimators=10, random_state=seed, **c)
    if model in ("MLP-adam", "MLP-sgd"):
        cls = neural_network.MLPClassifier if clf else neural_network.MLPRegressor
        fixed: dict[str, Any] = {"solver": "adam", "early_stopping": True}
        if model == "MLP-sgd":
            fixed = {"solver": "sgd", "early_stopping": True, "learning_rate": "invscaling",
                     "nesterovs_momentum": True}  # fmt: skip
            if not clf:
                fixed["activation"] = "tanh"
        return lambda **c: cls(random_state=seed, **fixed, **c)
    if model == "ada":
        cls = ensemble.AdaBoostClassifier if clf else ensemble.AdaBoostRegressor
        return lambda **c: cls(random_state=seed, **c)
    if model == "HGB":
        hgb = (
            ensemble.HistGradientBoostingClassifier
            if clf
            else ensemble.HistGradientBoostingRegressor
        )
        return lambda **c: hgb(early_stopping=False, random_state=seed, **c)
    if clf:
        from sklearn.multiclass import OneVsRestClassifier

        ratio = 1.0 if model == "lasso" else 0.0
        return lambda **c: OneVsRestClassifier(
            linear_model.LogisticRegression(
                l1_ratio=ratio, solver="liblinear", random_state=seed, **c
            )
        )
    if model == "lasso":
        return lambda **c: linear_model.Lasso(random_state=seed, **c)
    return lambda **c: linear_model.Ridge(solver="auto", **c)


class SklearnHPO(TypedProblem):
    """One bayesmark problem (or HGB): tune ``model`` on ``dataset`` for ``metric`` (minimized).

    Args:
        dim: ``0`` (or the space's encoded dimension): the dimension is the model's.
        model: one of :data:`MODELS`.
        dataset: one of :data:`DATASETS`.
        metric: ``acc``/``nll`` (classification) or ``mse``/``mae`` (regression); default
            ``acc`` or ``mse``.
        relaxed: present the problem on the unit cube of the encoding (a :class:`Box`) and
            round inside the objective.
        logit: scale bayesmark's logit-scaled reals by logit (``False``: linearly).
        seed: the data split and every model's ``random_state``.
    """

    name = "hpo-sklearn"
    description = "scikit-learn model tuning by 5-fold CV (bayesmark's design; HGB added)"

    def __init__(
        self,
        dim: int = 0,
        *,
        model: str = "kNN",
        dataset: str = "wine",
        metric: str | None = None,
        relaxed: bool = False,
        logit: bool = True,
        noise_std: float | str = 0.0,
        seed: int = 0,
    ) -> None:
        self.model = check_choice(model, "model", MODELS)
        self.dataset = check_choice(dataset, "dataset", tuple(DATASETS))
        loader, self.task = DATASETS[self.dataset]
        self.metric = METRICS[self.task][0] if metric is None else metric
        check_choice(self.metric, f"metric for {self.dataset}", METRICS[self.task])
        self.relaxed = check_bool(relaxed, "relaxed")
        self._set_typed(noise_std, seed)
        self.logit = check_bool(logit, "logit")
        self.typed_space = model_space(self.model, self.task, self.logit)
        self.dim = self.typed_space.dim
        self._check_dim(dim, f"hpo-sklearn {self.model}")
        self.space: Box | Space = (
            Box(np.zeros(self.dim), np.ones(self.dim)) if self.relaxed else self.typed_space
        )
        #: accuracy is at most 1, so its loss is at least -1; other losses are unbounded
        self.lower_bound = -1.0 if self.metric == "acc" else None
        self._loader = loader
        self._data: tuple[np.ndarray, ...] | None = None
        self._make = _estimator(self.model, self.task, self.metric, self.seed)

    def _split(self) -> tuple[np.ndarray, ...]:
        if self._data is None:
            import sklearn.datasets
            from sklearn.model_selection import train_test_split

            X, y = getattr(sklearn.datasets, self._loader)(return_X_y=True)
            self._data = tuple(
                train_test_split(X, y, test_size=0.2, random_state=self.seed, shuffle=True)
            )
        return self._data

    def config(self, x: Any) -> dict[str, Any]:
        """The configuration of a point as the problem's space gives it."""
        if self.relaxed:
            return self.typed_space.decode(np.asarray(x, dtype=float)[None])[0]
        return dict(x)

    def evaluate(self, x: Any) -> tuple[float, dict[str, Any]]:
        """Cross-validated loss and the held-out loss (``generalization``) at ``x``."""
        from sklearn.metrics import get_scorer

        config = self.config(x)
        X_train, X_test, y_train, y_test = self._split()
        scorer = get_scorer(_SCORERS[self.metric])
        scores = cross_validated(
            self._make(**config), X_train, y_train, scorer, CV_SPLITS, self.seed
        )
        with quiet_fits(self.seed):
            est = self._make(**config).fit(X_train, y_train)
            held_out = -float(scorer(est, X_test, y_test))
        loss = -float(np.mean(scores))
        if not np.isfinite(loss):
            raise FloatingPointError(f"{self.model} on {self.dataset}: loss {loss} at {config}")
        return loss, {"generalization": held_out}
