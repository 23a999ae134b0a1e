"""Peers given several objectives or constraints through their own APIs (the run itself
is the conformance suite's ``test_several_outputs_run_or_are_refused``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import isoline as iso
from isoline.methods.peers import NevergradPeer, OptunaCmaEs, OptunaNSGA2, OptunaTPE, SmacHPO


def test_optuna_gets_directions_and_the_constraints_of_each_trial() -> None:
    peer = OptunaTPE(2, seed=0, n_objectives=2, n_constraints=1)
    assert len(peer._study.directions) == 2
    X = peer.ask(3)
    Y = np.array([[1.0, 2.0, -0.5], [0.5, 3.0, 0.25], [np.nan, np.nan, np.nan]])
    peer.tell(X, Y)
    trials = peer._study.trials
    assert [t.state.name for t in trials] == ["COMPLETE", "COMPLETE", "FAIL"]
    assert trials[0].values == [1.0, 2.0] and trials[1].values == [0.5, 3.0]
    # the sampler's constraints_func ran on each finished trial and recorded its values
    assert [list(t.system_attrs["constraints"]) for t in trials[:2]] == [[-0.5], [0.25]]


def test_a_point_the_optuna_peer_did_not_propose_keeps_its_constraints() -> None:
    peer = OptunaNSGA2(2, seed=0, n_constraints=1)
    peer.tell(np.array([[0.2, 0.3]]), np.array([[4.0, 1.5]]))
    (t,) = peer._study.trials
    assert t.values == [4.0] and list(t.system_attrs["constraints"]) == [1.5]
    np.testing.assert_allclose([t.params["x0"], t.params["x1"]], [0.2, 0.3])


def test_peers_without_the_capability_refuse_it_naming_those_with_it() -> None:
    with pytest.raises(ValueError, match="'optuna-cmaes' handles one objective .* use one of"):
        OptunaCmaEs(2, n_objectives=2)
    with pytest.raises(ValueError, match="'smac-hpo' handles up to .* without constraints"):
        SmacHPO(2, n_constraints=1)


def _recording(peer: Any) -> list[tuple[Any, Any]]:
    """Record what the peer tells Nevergrad (its loss and constraint violations)."""
    told: list[tuple[Any, Any]] = []
    tell = peer._opt.tell

    def spy(candidate: Any, loss: Any, constraint_violation: Any = None) -> None:
        told.append((loss, constraint_violation))
        tell(candidate, loss, constraint_violation=constraint_violation)

    peer._opt.tell = spy
    return told


def test_nevergrad_is_told_loss_vectors_and_constraint_violations() -> None:
    peer = NevergradPeer(2, seed=0, budget=20, n_objectives=2, n_constraints=1)
    assert peer._opt.num_objectives == 2  # told before it starts: NGOpt runs DE at once
    told = _recording(peer)
    X = peer.ask(3)
    # a failure before any success waits for a row to impute, and follows the first one
    peer.tell(X, np.array([[np.nan] * 3, [1.0, 2.0, -0.5], [0.5, 3.0, 0.25]]))
    assert told == [([1.0, 2.0], [-0.5]), ([1.0, 2.0], [-0.5]), ([0.5, 3.0], [0.25])]
    peer.tell(peer.ask(1), np.array([[np.nan] * 3]))
    assert told[-1] == ([1.0, 3.0], [0.25]) and peer._opt.num_tell == 4


def test_nevergrad_with_one_objective_and_constraints() -> None:
    peer = NevergradPeer(2, seed=0, budget=20, n_constraints=2)
    told = _recording(peer)
    for row in ([np.nan] * 3, [2.0, 0.5, -1.0], [np.nan] * 3, [1.0, -0.5, -2.0]):
        peer.tell(peer.ask(1), np.array([row]))
    # a failure before any success: inf with unknown constraints (a sequential member of
    # the portfolio waits for every tell), after one: the worst value of each output
    assert told == [(np.inf, None), (2.0, [0.5, -1.0]), (2.0, [0.5, -1.0]), (1.0, [-0.5, -2.0])]


def _two(x: np.ndarray) -> dict[str, float] | None:
    """Two objectives and a constraint (x0 + x1 >= 0.6), failing where x1 > 0.8."""
    if x[1] > 0.8:
        return None
    return {"f": float(x[0]), "g": float((x[0] - 1) ** 2 + x[1]), "c": float(0.6 - x.sum())}


def test_a_nevergrad_two_objective_constrained_run_repeats_and_resumes(tmp_path: Path) -> None:
    box = iso.Box([0.0, 0.0], [1.0, 1.0])
    kw: dict[str, Any] = dict(method="nevergrad", budget=12, seed=3, objectives=["f", "g"],
                              constraints=["c"])  # fmt: skip
    whole = iso.optimize(_two, box, **kw)
    assert whole.n_evals == 12 and whole.values.shape == (12, 3)
    assert len(whole.pareto_front()[1]) >= 1 and whole.n_failed < 12
    again = iso.optimize(_two, box, **kw)
    np.testing.assert_array_equal(again.x_iters, whole.x_iters)
    other = iso.optimize(_two, box, **{**kw, "seed": 4})
    assert not np.array_equal(other.x_iters, whole.x_iters)
    calls = {"n": 0}

    def crashing(x: np.ndarray) -> dict[str, float] | None:
        calls["n"] += 1
        if calls["n"] == 7:
            raise KeyboardInterrupt
        return _two(x)

    db = str(tmp_path / "runs.db")
    with pytest.raises(KeyboardInterrupt):
        iso.optimize(crashing, box, storage=db, study="s", **kw)
    resumed = iso.optimize(_two, box, storage=db, study="s", **kw)
    np.testing.assert_array_equal(resumed.x_iters, whole.x_iters)
    np.testing.assert_array_equal(resumed.values, whole.values)


def test_a_constrained_nevergrad_run_by_ask_and_tell() -> None:
    opt = iso.Optimizer(iso.Box([0.0, 0.0], [1.0, 1.0]), "nevergrad", seed=0, budget=10,
                        objectives=["f"], constraints=["c"])  # fmt: skip
    for _ in range(10):
        (x,) = opt.ask()
        opt.tell([x], [{"f": float(np.sum((x - 0.8) ** 2)), "c": float(x.sum() - 1.0)}])
    assert opt.method._opt.num_tell == 10
    x, y = opt.best
    assert x.sum() <= 1.0 and y == pytest.approx(np.sum((x - 0.8) ** 2))
