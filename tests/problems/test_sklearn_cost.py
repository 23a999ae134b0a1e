"""hpo-sklearn-cost: HGB tuned for CV error and log10 leaves grown, two objectives."""

from __future__ import annotations

import math

import numpy as np
import pytest

import isoline as iso
from isoline.problems.sklearn_cost import leaves_grown

#: the most leaves HGB's space allows on a two-class problem: 100 iterations, 64 leaves
LARGEST = {"learning_rate": 0.1, "max_iter": 100, "max_leaf_nodes": 64,
           "min_samples_leaf": 1, "l2_regularization": 1e-6, "max_features": 1.0}  # fmt: skip


def test_same_config_and_seed_give_the_same_named_outputs() -> None:
    p = iso.problems.get("hpo-sklearn-cost", seed=1)
    assert p.objective.names == ("error", "cost") and p.objective.n_objectives == 2
    assert set(p.objective.directions) == {"minimize"} and p.objective.n_constraints == 0
    config = p.space.decode(np.full((1, p.dim), 0.2))[0]  # small: few iterations
    out = p(config)
    assert list(out) == ["error", "cost"]
    assert out == iso.problems.get("hpo-sklearn-cost", seed=1)(config)
    assert 0.0 <= out["error"] < 0.5
    # the cost is the leaves of the fold models: at most max_iter * max_leaf_nodes
    assert 1.0 <= out["cost"] <= math.log10(config["max_iter"] * config["max_leaf_nodes"])
    np.testing.assert_array_equal(p.outputs(config), [out["error"], out["cost"]])
    with pytest.raises(TypeError, match="several outputs"):
        p.evaluate(config)


def test_the_reference_point_is_worse_than_the_costliest_configuration() -> None:
    p = iso.problems.get("hpo-sklearn-cost")
    np.testing.assert_allclose(p.ref_point, [1.0, math.log10(100 * 64) + 0.1])
    row = p.outputs(LARGEST)
    assert np.all(row < p.ref_point)
    assert p.max_hypervolume is None
    # three classes: one tree per class and iteration
    iris = iso.problems.get("hpo-sklearn-cost", dataset="iris")
    assert iris.ref_point[1] == pytest.approx(math.log10(3 * 100 * 64) + 0.1)


def test_leaves_are_counted_over_every_tree() -> None:
    from sklearn.datasets import load_iris
    from sklearn.ensemble import HistGradientBoostingClassifier

    X, y = load_iris(return_X_y=True)
    model = HistGradientBoostingClassifier(max_iter=3, max_leaf_nodes=2, early_stopping=False)
    assert leaves_grown(model.fit(X, y)) == 3 * 3 * 2  # iterations * classes * leaves


def test_bad_options_are_refused() -> None:
    with pytest.raises(ValueError, match="model of hpo-sklearn-cost"):
        iso.problems.get("hpo-sklearn-cost", model="kNN")
    with pytest.raises(ValueError, match="classification"):
        iso.problems.get("hpo-sklearn-cost", dataset="diabetes")
    with pytest.raises(ValueError, match="noise"):
        iso.problems.get("hpo-sklearn-cost", noise_std=0.1)


def test_a_two_objective_gp_run_takes_the_problem_objective() -> None:
    p = iso.problems.get("hpo-sklearn-cost")
    res = iso.optimize(p, p.space, direction=p.objective, method="gp-ei", budget=6, seed=0)
    assert res.values.shape == (6, 2) and np.all(np.isfinite(res.values))
    np.testing.assert_array_equal(res.values[-1], p.outputs(res.x_iters[-1]))
