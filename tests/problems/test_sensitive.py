"""Sensitive-samples stand-in (NeuralBO §7.2.1) on a digits classifier."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import torch

from isoline import problems


@pytest.fixture(scope="module")
def prob() -> problems.Problem:
    return problems.get("sensitive-samples", seed=0)


def test_classifier_is_trained_and_deterministic(prob) -> None:
    assert prob.accuracy > 0.9
    again = problems.get("sensitive-samples", seed=0)
    x = np.full(64, 0.3)
    assert again(x) == prob(x)


def test_objective_is_minus_the_jacobian_norm(prob) -> None:
    x = np.random.default_rng(0).random(64)
    y, info = prob(x)
    img = torch.as_tensor(x, dtype=torch.float64)
    probs = prob._probs(prob.params, img)
    assert info["label"] == int(probs.argmax())
    # finite-difference check of one Jacobian entry's contribution: norm >= |d p_k / d b_k|
    grads = torch.autograd.functional.jacobian(
        lambda b: prob._probs({**prob.params, "2.bias": b}, img), prob.params["2.bias"]
    )
    assert -y >= float(grads.norm()) > 0


def test_sensitive_inputs_detect_tampering_better_than_random_inputs(prob) -> None:
    X = np.random.default_rng(1).random((150, 64))
    ys = np.array([prob(x)[0] for x in X])
    order = np.argsort(ys)
    best, rand = prob.detection_rate(X[order[:8]], 60), prob.detection_rate(X[:8], 60)
    assert best > rand + 0.2


def test_low_resolution_variant_and_pickle() -> None:
    p = problems.get("sensitive-samples", dim=16, seed=0, epochs=5)
    x = np.linspace(0, 1, 16)
    assert p.image(x).shape == (8, 8) and p.image(x)[0, 1] == p.image(x)[1, 0] == x[0]
    q = pickle.loads(pickle.dumps(p))
    assert q(x) == p(x)
    with pytest.raises(ValueError, match="allowed: 64, 16"):
        problems.get("sensitive-samples", dim=49)
    with pytest.raises(ValueError, match="tamper_scale"):
        problems.get("sensitive-samples", dim=16, tamper_scale=0)
