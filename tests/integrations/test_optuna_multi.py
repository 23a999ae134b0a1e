"""IsolineSampler on multi-objective and constrained Optuna studies."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import optuna
import pytest
from optuna.samplers import BaseSampler
from optuna.testing.pytest_samplers import MultiObjectiveSamplerTestCase

from isoline.integrations.optuna import IsolineSampler
from isoline.methods.registry import get_method

optuna.logging.set_verbosity(optuna.logging.WARNING)

#: methods that take several objectives: a model of them, and a design that ignores values
MULTI = [m for m in ("gp-ei", "random") if get_method(m).max_objectives > 1] + ["random"]


class TestMultiObjectiveSuite(MultiObjectiveSamplerTestCase):
    @pytest.fixture(params=sorted(set(MULTI)))
    def sampler(self, request: pytest.FixtureRequest) -> Callable[[], BaseSampler]:
        return lambda: IsolineSampler(request.param, seed=0)


def two_objectives(trial: optuna.Trial) -> tuple[float, float]:
    x = trial.suggest_float("x", 0.0, 1.0)
    y = trial.suggest_float("y", 0.0, 1.0)
    return (x - 0.2) ** 2 + y, -((x - 0.8) ** 2) - y  # minimize, maximize


@pytest.mark.parametrize("method", sorted(set(MULTI)))
def test_a_multi_objective_study_reaches_the_method_in_its_directions(method: str) -> None:
    sampler = IsolineSampler(method, seed=0)
    study = optuna.create_study(directions=["minimize", "maximize"], sampler=sampler)
    study.optimize(two_objectives, n_trials=8)
    (state,) = sampler._states.values()
    Y = state.optimizer.method.Y  # internal: the maximized objective negated
    told = np.array([t.values for t in study.trials[: len(Y)]])
    np.testing.assert_allclose(Y, told * [1.0, -1.0])
    assert study.best_trials


def x_and_limit(trial: optuna.Trial) -> float:
    x = trial.suggest_float("x", 0.0, 1.0)
    y = trial.suggest_float("y", 0.0, 1.0)
    trial.set_user_attr("c", x + y - 0.8)  # feasible when x + y <= 0.8
    return (x - 0.9) ** 2 + (y - 0.9) ** 2  # the unconstrained minimum is infeasible


def constraint(trial: optuna.trial.FrozenTrial) -> list[float]:
    return [trial.user_attrs["c"]]


def best_feasible(study: optuna.Study) -> float:
    done = study.get_trials(states=(optuna.trial.TrialState.COMPLETE,))
    ok = [t.value for t in done if t.user_attrs["c"] <= 0]
    return min(ok, default=np.inf)


@pytest.mark.parametrize("method", ["cobyqa", "cma-es"])
def test_constraints_func_values_reach_a_method_that_handles_them(method: str) -> None:
    sampler = IsolineSampler(method, seed=0, constraints_func=constraint)
    study = optuna.create_study(sampler=sampler)
    study.optimize(x_and_limit, n_trials=12)
    (state,) = sampler._states.values()
    m = state.optimizer.method
    assert m.n_constraints == 1 and m.Y.shape[1] == 2
    stored = [t.system_attrs["constraints"][0] for t in study.trials[: len(m.Y)]]
    np.testing.assert_allclose(m.Y[:, 1], stored)


def test_a_constrained_study_beats_random_sampling_on_its_best_feasible_value() -> None:
    wins = 0
    for seed in range(3):
        iso = optuna.create_study(sampler=IsolineSampler("cobyqa", seed=seed,
                                                         constraints_func=constraint))  # fmt: skip
        iso.optimize(x_and_limit, n_trials=25)
        rs = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=seed))
        rs.optimize(x_and_limit, n_trials=25)
        wins += best_feasible(iso) < best_feasible(rs)
    assert wins == 3


def test_set_constraint_values_reach_the_method_without_a_constraints_func() -> None:
    def objective(trial: optuna.Trial) -> float:
        x = trial.suggest_float("x", 0.0, 1.0)
        trial.set_constraint("x_below_half", x - 0.5)
        return -x

    sampler = IsolineSampler("cobyqa", seed=0)
    study = optuna.create_study(sampler=sampler)
    study.optimize(objective, n_trials=10)
    (state,) = sampler._states.values()
    assert state.constraints == ("x_below_half",)
    best = min(t.value for t in study.trials if t.params["x"] <= 0.5)
    assert best < -0.5 + 1e-3  # the feasible minimum, x = 0.5


def test_an_infinite_constraint_value_is_feasible_or_not_as_optuna_reads_it() -> None:
    """Optuna takes ``-inf`` as a satisfied constraint and ``+inf`` as a violated one; the
    method sees each trial feasible exactly when Optuna does, with its objective value."""

    def objective(trial: optuna.Trial) -> float:
        x = trial.suggest_float("x", 0.0, 1.0)
        trial.set_constraint("c", -np.inf if x < 0.3 else np.inf if x > 0.7 else x - 0.5)
        return x

    sampler = IsolineSampler("cobyqa", seed=0)
    study = optuna.create_study(sampler=sampler)
    study.optimize(objective, n_trials=14)
    (state,) = sampler._states.values()
    m = state.optimizer.method
    told = study.trials[: len(m.Y)]
    assert {t.constraints["c"] for t in told} >= {-np.inf, np.inf}
    np.testing.assert_array_equal(m.feasible(), [t.constraints["c"] <= 0 for t in told])
    np.testing.assert_array_equal(m.Y[:, 0], [t.value for t in told])
    assert state.optimizer.best[1] == min(t.value for t in told if t.constraints["c"] <= 0)


def test_auto_counts_the_running_trials_as_workers_and_skips_cobyqa() -> None:
    """One worker with one constraint gets COBYQA; a study whose trials run four at a time
    gets gp-ei's constraints form, since COBYQA would answer three of four asks at random."""

    def run(workers: int) -> optuna.Study:
        study = optuna.create_study(sampler=IsolineSampler(seed=0, constraints_func=constraint))
        running: list[optuna.Trial] = []
        for _ in range(12):
            while len(running) < workers:
                running.append(study.ask())
            trial = running.pop(0)
            study.tell(trial, x_and_limit(trial))
        return study

    def rules(study: optuna.Study) -> set[str]:
        return {t.system_attrs["isoline:auto"]["rule"] for t in study.trials
                if "isoline:auto" in t.system_attrs}  # fmt: skip

    assert rules(run(1)) == {"few constraints"}
    assert rules(run(4)) == {"constraints"}


def test_auto_gives_a_study_of_four_workers_the_kriging_believer() -> None:
    study = optuna.create_study(sampler=IsolineSampler(seed=0))
    running = [study.ask() for _ in range(4)]
    for _ in range(8):
        trial = running.pop(0)
        study.tell(trial, x_and_limit(trial))
        running.append(study.ask())
    chosen = [t.system_attrs.get("isoline:auto") for t in study.trials]
    assert {c["rule"] for c in chosen if c} == {"asynchronous"}
    done = study.get_trials(states=(optuna.trial.TrialState.COMPLETE,))
    assert len({(t.params["x"], t.params["y"]) for t in done}) == len(done) == 8
