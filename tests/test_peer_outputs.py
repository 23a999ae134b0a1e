"""Peers given several objectives or constraints through their own APIs (the run itself
is the conformance suite's ``test_several_outputs_run_or_are_refused``)."""

from __future__ import annotations

import numpy as np
import pytest

from isoline.methods.peers import OptunaCmaEs, OptunaNSGA2, OptunaTPE, SmacHPO


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
