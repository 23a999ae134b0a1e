"""hpo-sklearn: bayesmark's models and spaces on scikit-learn's bundled data sets."""

from __future__ import annotations

import numpy as np
import pytest

import isoline as iso
from isoline.problems.sklearn_hpo import MODELS, model_space


def test_spaces_follow_bayesmark() -> None:
    knn = model_space("kNN", "clf")
    assert knn.params == {"n_neighbors": iso.Integer(1, 25), "p": iso.Integer(1, 4)}
    svm = model_space("SVM", "clf").params
    assert svm["C"] == iso.Real(1.0, 1e3, log=True) and svm["gamma"].log
    dt = model_space("DT", "clf").params
    assert dt["max_depth"] == iso.Integer(1, 15) and dt["min_samples_leaf"].logit
    lasso = model_space("lasso", "reg").params
    assert lasso["fit_intercept"] == iso.Categorical([False, True])
    assert lasso["max_iter"] == iso.Integer(10, 5000, log=True)
    assert model_space("MLP-adam", "clf").dim == 9 and model_space("MLP-sgd", "clf").dim == 8
    hgb = model_space("HGB", "clf").params  # outside bayesmark's nine
    assert hgb["learning_rate"] == iso.Real(1e-3, 1.0, log=True) and len(hgb) == 6


@pytest.mark.parametrize("model", MODELS)
def test_every_model_evaluates_deterministically(model: str) -> None:
    dataset = "diabetes" if model in ("lasso", "linear") else "iris"
    p = iso.problems.get("hpo-sklearn", model=model, dataset=dataset, seed=1)
    config = p.space.decode(np.full((1, p.dim), 0.4))[0]
    y1, info = p(config)
    y2, _ = p(config)
    assert y1 == y2 and np.isfinite(y1) and np.isfinite(info["generalization"])
    if dataset == "iris":
        assert -1.0 <= y1 <= 0.0  # negated accuracy


def test_relaxed_problem_rounds_inside_the_objective() -> None:
    typed = iso.problems.get("hpo-sklearn", model="kNN", dataset="wine")
    relaxed = iso.problems.get("hpo-sklearn", model="kNN", dataset="wine", relaxed=True)
    assert isinstance(relaxed.space, iso.Box) and relaxed.space.dim == typed.dim
    u = np.array([0.33, 0.71])
    assert relaxed(u)[0] == typed(typed.space.decode(u[None])[0])[0]


def test_logit_false_gives_the_same_problem_on_a_linear_scale() -> None:
    kw = {"model": "MLP-sgd", "dataset": "iris", "seed": 2}
    logit = iso.problems.get("hpo-sklearn", **kw)
    linear = iso.problems.get("hpo-sklearn", logit=False, **kw)
    ratios = [k for k, v in logit.space.params.items() if getattr(v, "logit", False)]
    assert ratios == ["power_t", "momentum", "validation_fraction"]
    assert not any(getattr(v, "logit", False) for v in linear.space.params.values())
    assert linear.space.params["momentum"] == iso.Real(0.001, 0.999)
    config = logit.space.decode(np.full((1, logit.dim), 0.3))[0]
    assert linear(config)[0] == logit(config)[0]
    assert linear.space.decode(np.full((1, linear.dim), 0.3))[0] != config


def test_a_run_on_the_typed_space_gets_typed_configurations() -> None:
    p = iso.problems.get("hpo-sklearn", model="ada", dataset="iris")
    res = iso.minimize(p, p.space, "gp-ei", budget=6, seed=0, n_init=4)
    assert all(type(c["n_estimators"]) is int for c in res.x_iters)
    assert isinstance(res.x, dict) and set(res.x) == {"n_estimators", "learning_rate"}


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"model": "xgboost"}, "model"),
        ({"dataset": "mnist"}, "dataset"),
        ({"dataset": "wine", "metric": "mse"}, "metric"),
        ({"model": "kNN", "dim": 3}, "dim"),
    ],
)
def test_bad_options_are_named(kwargs: dict[str, object], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        iso.problems.get("hpo-sklearn", **kwargs)  # type: ignore[arg-type]


def test_a_flag_that_is_not_a_bool_is_named() -> None:
    with pytest.raises(TypeError, match="logit"):
        iso.problems.get("hpo-sklearn", model="DT", logit="no")
