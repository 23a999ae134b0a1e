"""Conditional tuning problems: scikit-learn spaces whose parameters exist only for some
choices of another (issue 42's benchmark).

Three problems, each on one of scikit-learn's bundled classification data sets:

* ``hpo-cash``: combined algorithm selection and hyperparameter optimization (CASH;
  Thornton, Hutter, Hoos & Leyton-Brown, "Auto-WEKA: combined selection and
  hyperparameter optimization of classification algorithms", KDD 2013): ``model`` chooses
  among kNN, an SVM, a random forest, logistic regression and an MLP, and each model's
  parameters are active only when it is chosen; the SVM's own parameters nest one level
  deeper (``svm_gamma`` only for the rbf and poly kernels, ``svm_degree`` only for poly).
* ``hpo-svm-kernel``: an SVM whose kernel decides its parameters (``gamma`` for rbf, poly
  and sigmoid; ``degree`` for poly; ``coef0`` for poly and sigmoid).
* ``hpo-mlp-solver``: an MLP whose solver has its own parameters (sgd: momentum, Nesterov
  momentum and the learning-rate schedule, with ``power_t`` only for the ``invscaling``
  schedule; adam: ``beta_1`` and ``beta_2``).

The objective is the validation error, ``1 - accuracy`` averaged over a stratified
3-fold cross-validation (three folds rather than five keep an evaluation cheap), or with
``metric="log_loss"`` the mean cross-entropy of the predicted class probabilities over the
same folds (the SVMs then fit Platt's sigmoid calibration on out-of-fold decision values). The error counts misclassified samples, so on a small data set
it moves in steps of one sample (1/178 on wine) and many configurations tie; the log loss
is a continuous function of the same models. The features are standardized inside each
fold. The problem's seed fixes the folds and every
model's ``random_state``, so the objective is a deterministic function of the active
parameters. The MLPs train for a fixed, small number of epochs, and each SVM fit stops
after :data:`SVM_MAX_ITER` iterations of libsvm's solver (a convergence warning is part of
the landscape, not a failure): without that cap a corner of the space, e.g. a degree-4
polynomial kernel with ``gamma = 10`` and ``C = 1000``, keeps libsvm busy for hours.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from isoline.params import Categorical, Integer, Real, Space
from isoline.problems.base import TypedProblem
from isoline.problems.sklearn_hpo import cross_validated
from isoline.validation import check_choice

__all__ = ["DATASETS", "METRICS", "CashHPO", "ConditionalHPO", "MlpSolverHPO", "SvmKernelHPO"]

#: data set -> loader name in ``sklearn.datasets`` (all classification)
DATASETS: dict[str, str] = {
    "digits": "load_digits",
    "wine": "load_wine",
    "breast": "load_breast_cancer",
    "iris": "load_iris",
}
CV_SPLITS = 3
#: objective -> (scikit-learn scoring, the score's sign in the minimized value, offset)
METRICS: dict[str, tuple[str, float, float]] = {
    "error": ("accuracy", -1.0, 1.0),
    "log_loss": ("neg_log_loss", -1.0, 0.0),
}
#: epochs of every MLP (scikit-learn's ``max_iter``)
MLP_EPOCHS = 20
#: most iterations of libsvm's solver per SVM fit (``SVC(max_iter=...)``): far above what
#: ordinary configurations need, reached only where the solver would not converge
SVM_MAX_ITER = 10_000_000


def svm_params(prefix: str, kernels: tuple[str, ...]) -> tuple[dict[str, Any], dict[str, Any]]:
    """An SVM's parameters (names prefixed) and their conditions on its kernel."""
    p = prefix
    params: dict[str, Any] = {
        f"{p}C": Real(1e-2, 1e3, log=True),
        f"{p}kernel": Categorical(list(kernels)),
        f"{p}gamma": Real(1e-4, 1e1, log=True),
        f"{p}degree": Integer(2, 5),
    }
    gamma = [k for k in kernels if k != "linear"]
    conditions: dict[str, Any] = {
        f"{p}gamma": {f"{p}kernel": gamma},
        f"{p}degree": {f"{p}kernel": "poly"},
    }
    if "sigmoid" in kernels:
        params[f"{p}coef0"] = Real(-1.0, 1.0)
        conditions[f"{p}coef0"] = {f"{p}kernel": ["poly", "sigmoid"]}
    return params, conditions


def cash_space() -> Space:
    """``hpo-cash``: the model's choice and each model's subspace."""
    svm, svm_conditions = svm_params("svm_", ("linear", "rbf", "poly"))
    params: dict[str, Any] = {
        "model": Categorical(["knn", "svm", "rf", "logreg", "mlp"]),
        "knn_n_neighbors": Integer(1, 30),
        "knn_weights": Categorical(["uniform", "distance"]),
        "knn_p": Integer(1, 2),
        **svm,
        "rf_n_estimators": Integer(5, 60, log=True),
        "rf_max_depth": Integer(1, 20),
        "rf_max_features": Real(0.05, 1.0),
        "rf_min_samples_leaf": Integer(1, 10),
        "logreg_C": Real(1e-3, 1e3, log=True),
        "logreg_fit_intercept": Categorical([True, False]),
        "mlp_hidden": Integer(8, 128, log=True),
        "mlp_alpha": Real(1e-6, 1e-1, log=True),
        "mlp_learning_rate_init": Real(1e-4, 1e-1, log=True),
    }
    conditions = dict(svm_conditions)
    for name in params:
        head = name.split("_")[0]
        if name != "model" and name not in conditions:
            conditions[name] = {"model": head}
    return Space(params, conditions)


def svm_kernel_space() -> Space:
    """``hpo-svm-kernel``: an SVM whose kernel decides its parameters."""
    params, conditions = svm_params("", ("linear", "rbf", "poly", "sigmoid"))
    return Space(params, conditions)


def mlp_solver_space() -> Space:
    """``hpo-mlp-solver``: an MLP whose solver has its own parameters."""
    params: dict[str, Any] = {
        "hidden": Integer(8, 128, log=True),
        "alpha": Real(1e-6, 1e-1, log=True),
        "learning_rate_init": Real(1e-4, 1e-1, log=True),
        "solver": Categorical(["sgd", "adam"]),
        "momentum": Real(0.0, 0.99),
        "nesterovs_momentum": Categorical([False, True]),
        "learning_rate": Categorical(["constant", "invscaling", "adaptive"]),
        "power_t": Real(0.1, 0.9),
        "beta_1": Real(0.5, 0.99),
        "beta_2": Real(0.9, 0.9999),
    }
    conditions = {
        "momentum": {"solver": "sgd"},
        "nesterovs_momentum": {"solver": "sgd"},
        "learning_rate": {"solver": "sgd"},
        "power_t": {"learning_rate": "invscaling"},
        "beta_1": {"solver": "adam"},
        "beta_2": {"solver": "adam"},
    }
    return Space(params, conditions)


def _svm(config: dict[str, Any], prefix: str, seed: int, probability: bool = False) -> Any:
    """An SVC; with ``probability``, wrapped in Platt's sigmoid calibration fitted on
    3-fold out-of-fold decision values (scikit-learn's ``CalibratedClassifierCV`` with
    ``ensemble=False``, the successor of ``SVC(probability=True)``)."""
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.svm import SVC

    kw = {k[len(prefix) :]: v for k, v in config.items() if k.startswith(prefix)}
    svc = SVC(random_state=seed, max_iter=SVM_MAX_ITER, **kw)
    if not probability:
        return svc
    return CalibratedClassifierCV(svc, method="sigmoid", cv=CV_SPLITS, ensemble=False)


def _mlp(config: dict[str, Any], prefix: str, seed: int) -> Any:
    from sklearn.neural_network import MLPClassifier

    kw = {k[len(prefix) :]: v for k, v in config.items() if k.startswith(prefix)}
    hidden = kw.pop("hidden")
    return MLPClassifier(hidden_layer_sizes=(hidden,), max_iter=MLP_EPOCHS, random_state=seed, **kw)


def cash_model(config: dict[str, Any], seed: int, probability: bool = False) -> Any:
    """The estimator of a ``hpo-cash`` configuration (active parameters only); an SVM fits
    its probability model if ``probability``."""
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.neighbors import KNeighborsClassifier

    model = config["model"]
    kw = {k[len(model) + 1 :]: v for k, v in config.items() if k.startswith(model + "_")}
    if model == "knn":
        return KNeighborsClassifier(**kw)
    if model == "svm":
        return _svm(config, "svm_", seed, probability)
    if model == "rf":
        return RandomForestClassifier(random_state=seed, **kw)
    if model == "logreg":
        return LogisticRegression(max_iter=200, random_state=seed, **kw)
    return _mlp(config, "mlp_", seed)


class ConditionalHPO(TypedProblem):
    """One conditional tuning problem: a cross-validated loss (minimized) on ``dataset``.

    Args:
        dim: ``0`` (or the space's encoded dimension): the dimension is the space's.
        dataset: one of :data:`DATASETS`; each problem has its own default.
        metric: one of :data:`METRICS`: ``"error"`` (1 - accuracy) or ``"log_loss"``.
        seed: the cross-validation folds and every model's ``random_state``.
    """

    default_dataset: ClassVar[str] = ""

    def __init__(
        self,
        dim: int = 0,
        *,
        dataset: str | None = None,
        metric: str = "error",
        noise_std: float | str = 0.0,
        seed: int = 0,
    ) -> None:
        self.dataset = check_choice(
            self.default_dataset if dataset is None else dataset, "dataset", tuple(DATASETS)
        )
        self.metric = check_choice(metric, "metric", tuple(METRICS))
        self._set_typed(noise_std, seed)
        self.space = self.make_space()
        self.dim = self.space.dim
        self._check_dim(dim, self.name)
        #: an error rate and a log loss are at least 0
        self.lower_bound = 0.0
        self._data: tuple[np.ndarray, np.ndarray] | None = None

    def make_space(self) -> Space:
        raise NotImplementedError

    def estimator(self, config: dict[str, Any]) -> Any:
        """The scikit-learn classifier of a configuration (active parameters only)."""
        raise NotImplementedError

    def _load(self) -> tuple[np.ndarray, np.ndarray]:
        if self._data is None:
            import sklearn.datasets

            X, y = getattr(sklearn.datasets, DATASETS[self.dataset])(return_X_y=True)
            self._data = (np.asarray(X, dtype=float), np.asarray(y))
        return self._data

    @property
    def probability(self) -> bool:
        """Whether the classifiers must predict class probabilities (the log loss)."""
        return self.metric == "log_loss"

    def evaluate(self, config: Any) -> tuple[float, dict[str, Any]]:
        """Cross-validated loss of a configuration (a dict of its active parameters), with
        each fold's loss under ``fold_errors`` or ``fold_log_losses``."""
        from sklearn.model_selection import StratifiedKFold
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        config = dict(config)
        self.space.encode(config)  # a configuration with inactive or missing parameters raises
        X, y = self._load()
        folds = StratifiedKFold(CV_SPLITS, shuffle=True, random_state=self.seed)
        model = make_pipeline(StandardScaler(), self.estimator(config))
        scoring, sign, offset = METRICS[self.metric]
        losses = [
            offset + sign * float(s)
            for s in cross_validated(model, X, y, scoring, folds, self.seed)
        ]
        loss = float(np.mean(losses))
        if not np.isfinite(loss):
            raise FloatingPointError(
                f"{self.name} on {self.dataset}: {self.metric} {loss} at {config}"
            )
        key = "fold_errors" if self.metric == "error" else "fold_log_losses"
        return loss, {key: losses}

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_data"] = None  # reloaded from scikit-learn in the receiving process
        return state


class CashHPO(ConditionalHPO):
    name = "hpo-cash"
    description = "CASH over kNN, SVM, RF, logistic regression, MLP; 3-fold CV error or log loss"
    default_dataset = "breast"

    def make_space(self) -> Space:
        return cash_space()

    def estimator(self, config: dict[str, Any]) -> Any:
        return cash_model(config, self.seed, self.probability)


class SvmKernelHPO(ConditionalHPO):
    name = "hpo-svm-kernel"
    description = "SVM with kernel-specific parameters; 3-fold CV error or log loss"
    default_dataset = "wine"

    def make_space(self) -> Space:
        return svm_kernel_space()

    def estimator(self, config: dict[str, Any]) -> Any:
        return _svm(config, "", self.seed, self.probability)


class MlpSolverHPO(ConditionalHPO):
    name = "hpo-mlp-solver"
    description = "MLP whose solver (sgd/adam) has its own parameters; 3-fold CV error or log loss"
    default_dataset = "wine"

    def make_space(self) -> Space:
        return mlp_solver_space()

    def estimator(self, config: dict[str, Any]) -> Any:
        return _mlp(config, "", self.seed)
