"""IsolineSampler on a define-by-run study whose parameters appear only in some trials:
it models the union of the parameters seen, and only never-seen ones are sampled
independently."""

from __future__ import annotations

import math
from typing import Any

import pytest

optuna = pytest.importorskip("optuna")

from isoline.integrations.optuna import IsolineSampler  # noqa: E402
from isoline.integrations.union import infer_conditions  # noqa: E402
from isoline.params import Categorical, Integer, Real  # noqa: E402


class Recording(optuna.samplers.RandomSampler):
    """A random independent sampler that records which parameters it sampled."""

    def __init__(self) -> None:
        super().__init__(seed=0)
        self.calls: list[tuple[int, str]] = []

    def sample_independent(self, study, trial, param_name, param_distribution) -> Any:
        self.calls.append((trial.number, param_name))
        return super().sample_independent(study, trial, param_name, param_distribution)


def objective(trial: optuna.Trial) -> float:
    kernel = trial.suggest_categorical("kernel", ["linear", "rbf", "poly"])
    value = math.log10(trial.suggest_float("C", 1e-3, 1e3, log=True)) ** 2
    if kernel in ("rbf", "poly"):
        value += (math.log10(trial.suggest_float("gamma", 1e-4, 1.0, log=True)) + 2) ** 2
    if kernel == "poly":
        degree = trial.suggest_int("degree", 2, 5)
        if degree in (3, 4):
            value += 0.5 * (trial.suggest_categorical("coef", ["a", "b"]) == "b")
    return value + {"linear": 1.0, "rbf": 0.0, "poly": 0.3}[kernel]


@pytest.mark.parametrize("method", ["random", "gp-ei"])
def test_only_never_seen_parameters_are_sampled_independently(method: str) -> None:
    independent = Recording()
    sampler = IsolineSampler(method, seed=0, n_init=4, independent_sampler=independent)
    study = optuna.create_study(sampler=sampler)
    study.optimize(objective, n_trials=14)
    trials = study.get_trials()
    assert all(t.state == optuna.trial.TrialState.COMPLETE for t in trials)
    for number, name in independent.calls:
        seen = [t for t in trials[:number] if name in t.params]
        assert not seen, f"trial {number}: {name!r} was seen before and sampled independently"
    assert (0, "kernel") in independent.calls  # the first trial has nothing to model
    # the conditional parameters were modelled: some trial after the first asked them
    assert any("gamma" in t.params for t in trials[1:])


def test_conditions_are_read_off_the_trials() -> None:
    params = {
        "kernel": Categorical(["linear", "rbf", "poly"]),
        "C": Real(0.0, 1.0),
        "gamma": Real(0.0, 1.0),
        "degree": Integer(2, 5),
        "coef": Categorical(["a", "b"]),
        "odd": Real(0.0, 1.0),
    }
    configs = [
        {"kernel": "linear", "C": 0.1, "odd": 0.5},
        {"kernel": "rbf", "C": 0.2, "gamma": 0.3},
        {"kernel": "poly", "C": 0.2, "gamma": 0.3, "degree": 2},
        {"kernel": "poly", "C": 0.2, "gamma": 0.3, "degree": 3, "coef": "a"},
        {"kernel": "rbf", "C": 0.4, "gamma": 0.1, "odd": 0.2},
    ]
    names, conditions = infer_conditions(params, configs)
    # 'odd' follows no single parameter (asked for linear and for rbf, not always): left out
    assert names == ["kernel", "C", "gamma", "degree", "coef"]
    assert conditions == {
        "gamma": {"kernel": ["rbf", "poly"]},
        "degree": {"kernel": ["poly"]},
        "coef": {"degree": [3, 4, 5]},  # 4 and 5 unseen yet: active until seen without it
    }


def test_the_sharpest_parent_wins_over_an_integer_with_distinct_values() -> None:
    # early in a study a layer width asked in every trial takes a new value in each, so it
    # also separates the trials that asked beta from those that did not
    # (the union lists parameters by name: hidden before solver)
    params = {"beta": Real(0.5, 0.99), "hidden": Integer(8, 128),
              "solver": Categorical(["sgd", "adam"])}  # fmt: skip
    configs = [
        {"hidden": 10, "solver": "sgd"},
        {"hidden": 50, "solver": "adam", "beta": 0.9},
        {"hidden": 90, "solver": "sgd"},
    ]
    assert infer_conditions(params, configs)[1] == {"beta": {"solver": ["adam"]}}


def test_unsettled_children_are_left_out_when_proposals_are_compared() -> None:
    from isoline.integrations.union import settled, unsettled_children

    configs = [{"depth": 7, "ccp": 0.5}, {"depth": 2}]
    unsettled = unsettled_children({"ccp": {"depth": [3, 4, 5, 6, 7, 8]}}, configs)
    assert unsettled == {"ccp": ("depth", [7, 2])}
    assert settled({"depth": 7, "ccp": 0.1}, unsettled) == {"depth": 7, "ccp": 0.1}
    # depth 5 was never tried: whether the objective asks ccp there is unknown
    assert settled({"depth": 5, "ccp": 0.1}, unsettled) == {"depth": 5}


def test_a_batch_never_evaluates_one_configuration_twice() -> None:
    """``ccp`` is asked only for depth > 5: at a depth no trial had, the model counts it
    active, so two proposals of one batch may differ in it alone. Such a pair is one
    evaluation twice; the sampler proposes again instead."""
    optuna.logging.set_verbosity(optuna.logging.WARNING)

    def objective(t: optuna.Trial) -> float:
        d = t.suggest_int("depth", 1, 10)
        return (d - 6) ** 2 / 10 - (0.1 * t.suggest_float("ccp", 0, 1) if d > 5 else 0.0)

    study = optuna.create_study(sampler=IsolineSampler("gp-ei", seed=0, batch_size=3))
    study.optimize(objective, n_trials=15)
    done = [tuple(sorted(t.params.items())) for t in study.trials if t.state.is_finished()]
    assert len(done) == 15 and len(set(done)) == 15


def test_claims_equal_but_for_an_unsettled_child_are_taken() -> None:
    from isoline.integrations.optuna import _claimed_elsewhere

    study = optuna.create_study()
    study.enqueue_trial({"depth": 7, "ccp": 0.5})
    study.optimize(lambda t: t.suggest_int("depth", 1, 10) + t.suggest_float("ccp", 0, 1), 1)
    trial = study.ask()
    unsettled = {"ccp": ("depth", [7])}
    claims = [{"depth": 3, "ccp": 0.1}, {"depth": 3, "ccp": 0.9}, {"depth": 7, "ccp": 0.2},
              {"depth": 7, "ccp": 0.5}]  # fmt: skip
    frozen = study._storage.get_trial(trial._trial_id)
    assert _claimed_elsewhere(study, frozen, claims, unsettled) == [1, 3]
    assert _claimed_elsewhere(study, frozen, claims) == [3]
