"""IsolineSampler through Optuna's own sampler test suite, and the bridge's own behaviour."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import optuna
import pytest
from optuna.samplers import BaseSampler
from optuna.testing.pytest_samplers import (
    BasicSamplerTestCase,
    RelativeSamplerTestCase,
    SingleOnlySamplerTestCase,
)

from isoline.integrations.optuna import IsolineSampler
from isoline.methods.registry import get_method

optuna.logging.set_verbosity(optuna.logging.WARNING)

# one method per kind of proposal the bridge serves: a GP acquisition, a trust region
# that keeps state between trials, a population, and a joint lattice batch (how each
# registered method behaves on its own is checked by tests/test_conformance.py)
METHODS = ["gp-ei", "turbo", "cma-es", "bkop"]


class TestOptunaSuite(BasicSamplerTestCase, RelativeSamplerTestCase):
    @pytest.fixture(params=METHODS)
    def sampler(self, request: pytest.FixtureRequest) -> Callable[[], BaseSampler]:
        return lambda: IsolineSampler(request.param, seed=0)


class TestSingleObjectiveMethods(SingleOnlySamplerTestCase):
    """A method that handles one objective refuses a multi-objective study (those that
    handle several pass Optuna's multi-objective suite, test_optuna_multi.py)."""

    @pytest.fixture(params=[m for m in METHODS if get_method(m).max_objectives == 1])
    def sampler(self, request: pytest.FixtureRequest) -> Callable[[], BaseSampler]:
        return lambda: IsolineSampler(request.param, seed=0)


def _objective(trial: optuna.Trial) -> float:
    x = trial.suggest_float("x", -3.0, 3.0)
    n = trial.suggest_int("n", 1, 8)
    c = trial.suggest_categorical("c", ["a", "b", None])
    return (x - 1.0) ** 2 + 0.1 * (n - 5) ** 2 + {"a": 0.0, "b": 1.0, None: 2.0}[c]


def test_same_seed_same_trials() -> None:
    runs = []
    for _ in range(2):
        study = optuna.create_study(sampler=IsolineSampler("gp-ei", seed=3))
        study.optimize(_objective, n_trials=8)
        runs.append([t.params for t in study.trials])
    assert runs[0] == runs[1]


def test_maximize_failures_and_pruning_reach_the_method() -> None:
    left = {"crash": 1, "prune": 1}

    def objective(trial: optuna.Trial) -> float:
        x = trial.suggest_float("x", 0.0, 1.0)
        # once each, away from the maximum: a failure is imputed with the worst value seen
        if x > 0.6 and left["crash"]:
            left["crash"] -= 1
            raise RuntimeError("simulator crashed")
        if x < 0.15 and left["prune"]:
            left["prune"] -= 1
            trial.report(-0.5, step=1)
            raise optuna.TrialPruned()
        return -((x - 0.3) ** 2)

    sampler = IsolineSampler("gp-ei", seed=0)
    study = optuna.create_study(direction="maximize", sampler=sampler)
    study.optimize(objective, n_trials=12, catch=(RuntimeError,))
    (state,) = sampler._states.values()
    y = state.optimizer.method.y
    assert np.isnan(y).sum() == 1  # the failed trial
    assert 0.5 in y  # the pruned trial's last intermediate value, negated
    assert np.nanmin(y) >= 0.0  # maximized values were negated
    assert study.best_value > -0.01


def test_an_infinite_objective_value_is_a_failed_evaluation() -> None:
    """Optuna completes a trial whose value is infinite; the method sees it as failed
    (a NaN, imputed by the methods that need a number), as in isoline's own runs."""

    def objective(trial: optuna.Trial) -> float:
        x = trial.suggest_float("x", 0.0, 1.0)
        return float("inf") if x > 0.5 else x

    sampler = IsolineSampler("random", seed=0)
    study = optuna.create_study(sampler=sampler)
    study.optimize(objective, n_trials=10)
    (state,) = sampler._states.values()
    y = state.optimizer.method.y
    told = study.trials[: len(y)]
    assert all(t.state == optuna.trial.TrialState.COMPLETE for t in told)
    infinite = [np.isinf(t.value) for t in told]
    assert 0 < sum(infinite) < len(told)
    np.testing.assert_array_equal(np.isnan(y), infinite)


def test_batches_go_through_the_waiting_queue() -> None:
    sampler = IsolineSampler("bkop", seed=0, batch_size=4)
    study = optuna.create_study(sampler=sampler)
    study.optimize(_objective, n_trials=16)
    done = study.get_trials(states=(optuna.trial.TrialState.COMPLETE,))
    assert len(done) == 16
    keys = [tuple(sorted(t.params.items(), key=str)) for t in done]
    assert len(set(keys)) == len(keys)
    queued = [t for t in done if "isoline:batch" in t.user_attrs]
    assert len(queued) >= 6


def test_a_batch_is_claimed_whole_until_its_queued_trials_exist() -> None:
    """Two workers with one history propose one joint batch: the later one must see the
    configurations the earlier one is about to queue, not only the one it evaluates."""
    from isoline.integrations.optuna import _claimed_elsewhere

    study = optuna.create_study()
    a, b = study.ask(), study.ask()
    batch = [{"x": 0.1}, {"x": 0.2}, {"x": 0.3}]
    assert _claimed_elsewhere(study, study._storage.get_trial(a._trial_id), batch) == []
    mine = [{"x": 0.3}, {"x": 0.9}, {"x": 0.1}]
    assert _claimed_elsewhere(study, study._storage.get_trial(b._trial_id), mine) == [0, 2]
    study.tell(a, 1.0)  # a finished trial's claim lapses; its own parameters still count
    study.enqueue_trial({"x": 0.2})
    again = [{"x": 0.1}, {"x": 0.2}, {"x": 0.3}]
    assert _claimed_elsewhere(study, study._storage.get_trial(b._trial_id), again) == [1]


def test_a_trial_whose_every_proposal_is_taken_goes_to_the_independent_sampler(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Five proposals all held by other trials (COBYQA re-proposing one point, say): the
    trial is drawn by the independent sampler, not given a configuration already taken."""
    from isoline.integrations import optuna as bridge

    study = optuna.create_study(sampler=IsolineSampler("cobyqa", seed=0))
    study.optimize(_objective, n_trials=3)
    drawn: list[int] = []
    independent = optuna.samplers.RandomSampler(seed=5)
    original = independent.sample_independent

    def recording(study: optuna.Study, trial: optuna.trial.FrozenTrial, *args: object) -> object:
        drawn.append(trial.number)
        return original(study, trial, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(independent, "sample_independent", recording)
    monkeypatch.setattr(bridge, "_claimed_elsewhere", lambda *args: [0])
    study.sampler = IsolineSampler("cobyqa", seed=0, independent_sampler=independent)
    study.optimize(_objective, n_trials=2)
    assert sorted(set(drawn)) == [3, 4]
    assert all(t.system_attrs.get("isoline:claim", []) == [] for t in study.trials[3:])


def test_a_new_sampler_recovers_from_the_stored_trials() -> None:
    study = optuna.create_study(sampler=IsolineSampler("gp-ei", seed=1))
    study.optimize(_objective, n_trials=10)
    fresh = IsolineSampler("gp-ei", seed=1)
    resumed = optuna.load_study(study_name=study.study_name, storage=study._storage,
                                sampler=fresh)  # fmt: skip
    resumed.optimize(_objective, n_trials=1)
    (state,) = fresh._states.values()
    assert len(state.optimizer.method.y) == 10  # every earlier trial was told


def test_bad_input_is_named() -> None:
    with pytest.raises(ValueError, match="unknown method|nope"):
        IsolineSampler("nope")
    with pytest.raises(TypeError, match="no_such"):
        IsolineSampler("gp-ei", no_such=1)
    study = optuna.create_study(
        directions=["minimize", "minimize"], sampler=IsolineSampler("cma-es")
    )
    with pytest.raises(ValueError, match="2 objectives.*use one of"):
        study.optimize(lambda t: (t.suggest_float("x", 0, 1), 1.0), n_trials=1)


def test_an_untested_optuna_version_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(optuna, "__version__", "3.6.1")
    with pytest.raises(RuntimeError, match="tested with Optuna 4.x-5.x, this is 3.6.1"):
        IsolineSampler("gp-ei")


_WORKER = """
import sys, time, optuna
from isoline.integrations.optuna import IsolineSampler
optuna.logging.set_verbosity(optuna.logging.WARNING)
def objective(trial):
    x = trial.suggest_float("x", -3.0, 3.0)
    n = trial.suggest_int("n", 1, 8)
    time.sleep(0.2)
    return (x - 1.0) ** 2 + 0.1 * (n - 5) ** 2
study = optuna.load_study(study_name="shared", storage=sys.argv[1],
                          sampler=IsolineSampler("gp-ei", seed=int(sys.argv[2])))
study.optimize(objective, n_trials=6)
"""


def test_worker_processes_share_one_sqlite_study(tmp_path) -> None:
    import subprocess
    import sys

    url = f"sqlite:///{tmp_path / 'optuna.db'}"
    optuna.create_study(study_name="shared", storage=url)
    script = tmp_path / "worker.py"
    script.write_text(_WORKER)
    workers = [subprocess.Popen([sys.executable, str(script), url, "0"]) for _ in range(2)]
    assert all(w.wait(timeout=600) == 0 for w in workers)
    trials = optuna.load_study(study_name="shared", storage=url).trials
    assert len(trials) == 12
    assert all(t.state == optuna.trial.TrialState.COMPLETE for t in trials)
    keys = [tuple(sorted(t.params.items())) for t in trials]
    assert len(set(keys)) == len(keys), "two workers evaluated the same configuration"


def test_the_optunahub_package_loads_and_runs() -> None:
    from pathlib import Path

    import optunahub

    root = Path(__file__).resolve().parents[2] / "packaging" / "optunahub"
    mod = optunahub.load_local_module(package="samplers/isoline", registry_root=str(root))
    study = optuna.create_study(sampler=mod.IsolineSampler("turbo", seed=0))
    study.optimize(_objective, n_trials=6)
    assert len(study.trials) == 6 and np.isfinite(study.best_value)


_DYING_WORKER = """
import sys, time, optuna
from isoline.integrations.optuna import IsolineSampler
optuna.logging.set_verbosity(optuna.logging.WARNING)
storage = optuna.storages.RDBStorage(sys.argv[1], heartbeat_interval=1, grace_period=2)
def objective(trial):
    x = trial.suggest_float("x", -3.0, 3.0)
    if trial.number == 4:
        print("hanging", flush=True)
        time.sleep(600)
    return (x - 1.0) ** 2
study = optuna.load_study(study_name="s", storage=storage, sampler=IsolineSampler("gp-ei", seed=0))
study.optimize(objective, n_trials=10)
"""


def test_a_killed_worker_leaves_the_study_usable(tmp_path) -> None:
    import subprocess
    import sys
    import time

    url = f"sqlite:///{tmp_path / 'hb.db'}"
    storage = optuna.storages.RDBStorage(url, heartbeat_interval=1, grace_period=2)
    optuna.create_study(study_name="s", storage=storage)
    script = tmp_path / "dying.py"
    script.write_text(_DYING_WORKER)
    worker = subprocess.Popen([sys.executable, str(script), url], stdout=subprocess.PIPE, text=True)
    assert worker.stdout is not None and worker.stdout.readline().strip() == "hanging"
    worker.kill()
    worker.wait(timeout=60)
    time.sleep(3)  # past the grace period: the hanging trial is stale
    sampler = IsolineSampler("gp-ei", seed=1)
    study = optuna.load_study(study_name="s", storage=storage, sampler=sampler)
    study.optimize(lambda t: (t.suggest_float("x", -3.0, 3.0) - 1.0) ** 2, n_trials=3)
    states = [t.state for t in study.trials]
    assert states[4] == optuna.trial.TrialState.FAIL
    assert states.count(optuna.trial.TrialState.COMPLETE) == 7
    (state,) = sampler._states.values()
    assert np.isnan(state.optimizer.method.y).sum() == 1  # the killed trial, as a failure


def test_auto_is_the_default_and_each_proposal_records_its_choice() -> None:
    study = optuna.create_study(sampler=IsolineSampler(seed=0))
    study.optimize(_objective, n_trials=6)
    chosen = [t.system_attrs.get("isoline:auto") for t in study.trials]
    assert chosen[0] is None  # the first trial has no relative search space yet
    assert all(c is not None and c["method"] == _rule_method(c) for c in chosen[1:])


def _rule_method(choice: dict[str, str]) -> str:
    from isoline.auto import RULES

    return next(r.method for r in RULES if r.name == choice["rule"])


def test_threads_of_one_study_sample_one_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    import pickle
    import threading
    import time

    inside, most = [0], [0]
    guard = threading.Lock()
    real = IsolineSampler._sample_relative

    def watched(self, *args):
        with guard:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        time.sleep(0.01)  # long enough for another thread to arrive
        try:
            return real(self, *args)
        finally:
            with guard:
                inside[0] -= 1

    monkeypatch.setattr(IsolineSampler, "_sample_relative", watched)
    sampler = IsolineSampler("bkop", seed=0, batch_size=2, n_init=2)
    study = optuna.create_study(sampler=sampler)
    study.optimize(lambda t: t.suggest_float("x", -1, 1) ** 2 + t.suggest_float("y", -1, 1) ** 2,
                   n_trials=16, n_jobs=4)  # fmt: skip
    assert most[0] == 1
    done = study.get_trials(states=(optuna.trial.TrialState.COMPLETE,))
    assert len(done) == 16  # none failed (a batch's queued trials may still wait)
    copy = pickle.loads(pickle.dumps(sampler))  # the lock is made anew, not pickled
    assert copy._lock is not sampler._lock and copy._states.keys() == sampler._states.keys()


def test_constraints_a_method_ignores_get_one_warning_per_study() -> None:
    def objective(trial: optuna.Trial) -> float:
        x = trial.suggest_float("x", 0.0, 1.0)
        trial.set_constraint("x_below_half", x - 0.5)
        return -x

    study = optuna.create_study(sampler=IsolineSampler("rf-ei", seed=0))
    with pytest.warns(UserWarning, match="ignores Optuna constraints") as caught:
        study.optimize(objective, n_trials=4)
    messages = [str(w.message) for w in caught if "constraints" in str(w.message)]
    assert len(messages) == 1 and "x_below_half" in messages[0] and "cobyqa" in messages[0]


def test_constraints_of_a_constraints_func_in_stored_trials_are_warned_about() -> None:
    # a study filled by another sampler's constraints_func, continued with IsolineSampler
    study = optuna.create_study(sampler=IsolineSampler("rf-ei", seed=0))
    dist = {"x": optuna.distributions.FloatDistribution(0.0, 1.0)}
    for x in (0.2, 0.7):
        study.add_trial(
            optuna.trial.create_trial(
                params={"x": x}, distributions=dist, value=x, system_attrs={"constraints": (x,)}
            )
        )
    with pytest.warns(UserWarning, match=r"constraint\(s\) \['0'\]"):
        study.optimize(lambda t: t.suggest_float("x", 0.0, 1.0), n_trials=1)


def test_an_unconstrained_study_gets_no_constraint_warning() -> None:
    import warnings

    study = optuna.create_study(sampler=IsolineSampler("random", seed=0))
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*constraints.*")
        study.optimize(lambda t: t.suggest_float("x", 0.0, 1.0), n_trials=3)
