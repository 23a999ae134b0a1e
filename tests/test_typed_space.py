"""minimize and Optimizer on a typed Space: configurations in, plain values out, resume."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import isoline as iso
from isoline.params import Categorical, Integer, Real, Space

SPACE = Space(
    {
        "lr": Real(1e-4, 1e-1, log=True),
        "depth": Integer(1, 6),
        "act": Categorical(["relu", "tanh", (1, 2)]),
    }
)


def objective(c: dict) -> float:
    assert type(c["lr"]) is float and type(c["depth"]) is int
    assert c["act"] in SPACE.params["act"].choices  # type: ignore[union-attr]
    penalty = 0.0 if c["act"] == (1, 2) else 1.0
    return (np.log10(c["lr"]) + 2) ** 2 + (c["depth"] - 3) ** 2 + penalty


def test_resume_gives_back_a_tuple_choice_as_itself(tmp_path) -> None:
    db = str(tmp_path / "runs.db")
    full = iso.minimize(objective, SPACE, "random", budget=12, seed=2)
    calls = {"n": 0}

    def crashing(c: dict) -> float:
        calls["n"] += 1
        if calls["n"] == 9:
            raise KeyboardInterrupt
        return objective(c)

    with pytest.raises(KeyboardInterrupt):
        iso.minimize(crashing, SPACE, "random", budget=12, seed=2, storage=db, study="s")
    resumed = iso.minimize(objective, SPACE, "random", budget=12, seed=2, storage=db, study="s")
    # the objective asserts the types it is given: a failed evaluation would hide one
    assert full.n_failed == 0 and resumed.n_failed == 0
    assert resumed.x_iters == full.x_iters
    assert any(c["act"] == (1, 2) and type(c["act"]) is tuple for c in resumed.x_iters)


def test_optimizer_takes_known_configurations_and_names_bad_ones() -> None:
    opt = iso.Optimizer(SPACE, "gp-ei", seed=0, n_init=3)
    opt.tell([{"lr": 0.01, "depth": 3, "act": (1, 2)}], [0.0])  # never asked: known data
    configs = opt.ask()
    opt.tell(configs, [objective(c) for c in configs])
    best = opt.best
    assert best is not None and best[0] == {"lr": pytest.approx(0.01), "depth": 3, "act": (1, 2)}
    with pytest.raises(ValueError, match="parameter 'depth': 9 is outside"):
        opt.tell([{"lr": 0.01, "depth": 9, "act": "relu"}], [1.0])
    with pytest.raises(TypeError, match="configurations as dicts"):
        opt.tell([[0.01, 3, "relu"]], [1.0])


def test_a_changed_space_is_refused_on_resume(tmp_path) -> None:
    db = str(tmp_path / "runs.db")
    iso.minimize(objective, SPACE, "random", budget=3, storage=db, study="s")
    other = Space({**SPACE.params, "depth": Integer(1, 7)})
    with pytest.raises(iso.StoreError, match="parameter 'depth': stored") as e:
        iso.minimize(objective, other, "random", budget=5, storage=db, study="s")
    assert "'lr'" not in str(e.value)  # only the difference is named
    fewer = Space({k: v for k, v in SPACE.params.items() if k != "depth"})
    with pytest.raises(iso.StoreError, match="parameter 'depth' removed"):
        iso.minimize(objective, fewer, "random", budget=5, storage=db, study="s")
    same = iso.minimize(objective, SPACE, "random", budget=3, storage=db, study="s")
    assert same.n_failed == 0
    assert len(same.func_vals) == 3


def test_a_warning_says_when_every_configuration_has_been_proposed() -> None:
    """Four configurations: the first four asks are distinct and silent, the fifth repeats
    one and says so, once."""
    space = iso.Space({"a": iso.Categorical(["x", "y"]), "n": iso.Integer(1, 2)})
    opt = iso.Optimizer(space, method="random", seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        first = opt.ask(4)
    assert len({iso.Space.key(c) for c in first}) == 4
    with pytest.warns(RuntimeWarning, match="all 4 configurations of the space"):
        opt.ask(1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.ask(2)  # said once
