"""The conditional tuning problems: registered by name, tree-shaped spaces, deterministic
validation error of the active parameters only."""

from __future__ import annotations

import numpy as np
import pytest

import isoline as iso


@pytest.mark.parametrize(
    ("name", "config"),
    [
        ("hpo-cash", {"model": "svm", "svm_C": 10.0, "svm_kernel": "poly", "svm_gamma": 0.5,
                      "svm_degree": 2}),
        ("hpo-cash", {"model": "knn", "knn_n_neighbors": 5, "knn_weights": "distance",
                      "knn_p": 2}),
        ("hpo-svm-kernel", {"C": 1.0, "kernel": "sigmoid", "gamma": 0.01, "coef0": 0.0}),
        ("hpo-mlp-solver", {"hidden": 8, "alpha": 1e-4, "learning_rate_init": 1e-2,
                            "solver": "sgd", "momentum": 0.9, "nesterovs_momentum": True,
                            "learning_rate": "invscaling", "power_t": 0.5}),
    ],
)  # fmt: skip
def test_a_configuration_of_active_parameters_evaluates_deterministically(
    name: str, config: dict
) -> None:
    p = iso.problems.get(name, dataset="iris", seed=3)
    y1, info = p(config)
    y2, _ = p(config)
    assert y1 == y2 and 0.0 <= y1 < 0.5 and len(info["fold_errors"]) == 3
    assert p.space.active(config) == list(config)


def test_the_spaces_are_trees() -> None:
    cash = iso.problems.get("hpo-cash").space
    # SVM gamma only for the rbf and poly kernels, degree only for poly: nested under model
    assert cash.active({"model": "svm", "svm_kernel": "linear"}) == ["model", "svm_C", "svm_kernel"]
    assert "svm_degree" in cash.active({"model": "svm", "svm_kernel": "poly"})
    assert cash.active({"model": "logreg", "svm_kernel": "poly"}) == [
        "model", "logreg_C", "logreg_fit_intercept"
    ]  # fmt: skip
    assert {c.split("_")[0] for c in cash.params} - {"model"} == {
        "knn",
        "svm",
        "rf",
        "logreg",
        "mlp",
    }
    mlp = iso.problems.get("hpo-mlp-solver").space
    assert mlp.active({"solver": "adam"})[-2:] == ["beta_1", "beta_2"]
    sgd = mlp.active({"solver": "sgd", "learning_rate": "invscaling"})
    assert "power_t" in sgd and "beta_1" not in sgd
    assert "power_t" not in mlp.active({"solver": "sgd", "learning_rate": "constant"})


def test_an_inactive_parameter_is_refused_and_the_seed_fixes_the_folds() -> None:
    p = iso.problems.get("hpo-svm-kernel", dataset="iris", seed=0)
    with pytest.raises(ValueError, match="inactive"):
        p({"C": 1.0, "kernel": "linear", "gamma": 0.1})
    U = np.random.default_rng(0).random((4, p.dim))
    configs = p.space.decode(U)
    other = iso.problems.get("hpo-svm-kernel", dataset="iris", seed=1)
    assert [p(c)[0] for c in configs] != [other(c)[0] for c in configs]
    with pytest.raises(ValueError, match="dataset"):
        iso.problems.get("hpo-cash", dataset="mnist")


def test_svm_fits_stop_at_the_iteration_cap(monkeypatch) -> None:
    """A corner where libsvm does not converge (it ran for hours uncapped) ends at the cap,
    with the cap's model, in both problems that fit SVMs."""
    import isoline.problems.conditional as cond

    monkeypatch.setattr(cond, "SVM_MAX_ITER", 50)
    corner = {"C": 1000.0, "kernel": "poly", "gamma": 10.0, "degree": 4, "coef0": -1.0}
    svm = iso.problems.get("hpo-svm-kernel", dataset="breast", seed=0)
    cash = iso.problems.get("hpo-cash", dataset="breast", seed=0)
    assert svm.estimator(corner).max_iter == 50
    cash_corner = {"model": "svm", **{f"svm_{k}": v for k, v in corner.items() if k != "coef0"}}
    assert cash.estimator(cash_corner).max_iter == 50
    y, _ = svm(corner)
    assert 0.0 <= y <= 1.0


def test_the_log_loss_metric_scores_probabilities_and_a_bad_metric_is_refused() -> None:
    """``metric="log_loss"``: the mean fold cross-entropy, continuous where the error ties;
    the SVMs are calibrated for it."""
    from sklearn.metrics import log_loss

    config = {"C": 1.0, "kernel": "rbf", "gamma": 0.05}
    p = iso.problems.get("hpo-svm-kernel", dataset="iris", metric="log_loss", seed=2)
    assert hasattr(p.estimator(config), "predict_proba")
    y, info = p(config)
    assert len(info["fold_log_losses"]) == 3 and y == np.mean(info["fold_log_losses"]) > 0.0
    # the first fold's loss, recomputed with scikit-learn's own log_loss
    from sklearn.model_selection import StratifiedKFold
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, t = p._load()
    train, test = next(StratifiedKFold(3, shuffle=True, random_state=2).split(X, t))
    model = make_pipeline(StandardScaler(), p.estimator(config)).fit(X[train], t[train])
    assert info["fold_log_losses"][0] == pytest.approx(
        log_loss(t[test], model.predict_proba(X[test]))
    )
    error = iso.problems.get("hpo-svm-kernel", dataset="iris", seed=2)
    assert not hasattr(error.estimator(config), "predict_proba") and error(config)[0] != y
    with pytest.raises(ValueError, match="metric"):
        iso.problems.get("hpo-cash", metric="auc")
