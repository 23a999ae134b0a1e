"""Hyperparameter tuning on digits (BKOP CIFAR-100 stand-in)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from isoline import problems
from isoline.problems.hpo import DigitsCNN, digits_split


def test_decode_maps_integer_continuous_and_choice_variables() -> None:
    hp = DigitsCNN.decode(np.array([2.6, -2.0, 0.5, -4.0, 0.0, 1.99, 3.0]))
    assert hp == {
        "depth": 3,
        "lr": pytest.approx(0.01),
        "momentum": 0.5,
        "weight_decay": pytest.approx(1e-4),
        "filters": (2, 3, 4),
    }
    assert DigitsCNN.decode(np.array([0.5, -4, 0.1, -10, 0, 0, 0]))["depth"] == 1
    p = problems.get("hpo-digits")
    assert p.space.names[0] == "depth" and p.dim == 7 and p.lower_bound == 0.0


def test_split_is_stratified_and_seeded() -> None:
    a, b = digits_split(0), digits_split(0)
    c = digits_split(1)
    assert np.array_equal(a[1], b[1]) and not np.array_equal(a[1], c[1])
    assert a[0].shape[1:] == (8, 8) and 0 <= a[0].min() and a[0].max() <= 1
    assert len(a[1]) + len(a[3]) == 1797
    counts = np.bincount(a[3], minlength=10)
    assert counts.min() >= 55  # every class in the validation set


def test_objective_is_deterministic_and_meaningful() -> None:
    p = problems.get("hpo-digits", epochs=3, seed=0)
    good = np.array([1.0, -1.5, 0.9, -5.0, 1.0, 1.0, 1.0])  # lr 0.03, momentum 0.9, 3x3
    bad = np.array([1.0, -4.0, 0.1, -5.0, 1.0, 1.0, 1.0])  # lr 1e-4, little momentum
    y_good, info = p(good)
    assert y_good == p(good)[0]  # same seed, same training run
    assert info["filters"] == [3, 3, 3] and info["lr"] == pytest.approx(10**-1.5)
    y_bad = p(bad)[0]
    assert 0.0 <= y_good < 0.15 < 0.5 < y_bad <= 1.0
    q = pickle.loads(pickle.dumps(p))
    assert q._data is None and q(good)[0] == y_good


def test_bad_options() -> None:
    with pytest.raises(ValueError, match="epochs"):
        problems.get("hpo-digits", epochs=0)
    with pytest.raises(ValueError, match="allowed: 7"):
        problems.get("hpo-digits", dim=6)
