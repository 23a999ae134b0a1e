"""minimize and Optimizer on a typed Space: configurations in, plain values out, resume."""

from __future__ import annotations

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
METHODS = [m.name for m in iso.methods()]


def objective(c: dict) -> float:
    assert type(c["lr"]) is float and type(c["depth"]) is int
    assert c["act"] in SPACE.params["act"].choices  # type: ignore[union-attr]
    penalty = 0.0 if c["act"] == (1, 2) else 1.0
    return (np.log10(c["lr"]) + 2) ** 2 + (c["depth"] - 3) ** 2 + penalty


@pytest.mark.parametrize("method", METHODS)
def test_every_method_runs_on_a_mixed_space(method: str) -> None:
    runs = [iso.minimize(objective, SPACE, method, budget=8, seed=4, n_init=4) for _ in range(2)]
    res = runs[0]
    assert res.n_evals == 8 and res.n_failed == 0
    for c in res.x_iters:
        assert set(c) == {"lr", "depth", "act"}
        assert 1e-4 <= c["lr"] <= 1e-1 and 1 <= c["depth"] <= 6
    assert isinstance(res.x, dict) and res.fun == min(res.func_vals)
    assert runs[1].x_iters == res.x_iters  # the same seed, the same configurations


def test_interrupted_run_resumes_the_same_configurations(tmp_path) -> None:
    full = iso.minimize(objective, SPACE, "gp-ei", budget=14, seed=2)
    calls = {"n": 0}

    def crashing(c: dict) -> float:
        calls["n"] += 1
        if calls["n"] == 9:
            raise KeyboardInterrupt
        return objective(c)

    db = str(tmp_path / "runs.db")
    with pytest.raises(KeyboardInterrupt):
        iso.minimize(crashing, SPACE, "gp-ei", budget=14, seed=2, storage=db, study="s")
    resumed = iso.minimize(objective, SPACE, "gp-ei", budget=14, seed=2, storage=db, study="s")
    assert resumed.x_iters == full.x_iters
    np.testing.assert_array_equal(resumed.func_vals, full.func_vals)


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
    assert (
        len(iso.minimize(objective, SPACE, "random", budget=3, storage=db, study="s").func_vals)
        == 3
    )
