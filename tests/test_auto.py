"""method="auto": the rules, the default of every entry point, and what runs record."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from pathlib import Path

import numpy as np
import pytest

import isoline as iso
from isoline import auto
from isoline.auto import outputs as auto_outputs
from isoline.auto import rules as auto_rules
from isoline.methods.registry import get_method, make_method
from isoline.params import Categorical, Integer, Real, Space
from isoline.store import Store, StoreError


def sphere(x: np.ndarray) -> float:
    return float(np.sum((np.asarray(x) - 0.3) ** 2))


def box(d: int) -> iso.Box:
    return iso.Box([0.0] * d, [1.0] * d)


MIXED = Space(
    {"lr": Real(1e-4, 1.0, log=True), "depth": Integer(1, 8), "act": Categorical(["a", "b"])}
)

#: one situation per rule: (space, budget, batch_size, noisy) -> the rule it must hit
CASES = [
    (box(5), 8, 1, False, "design-only"),
    (box(6), 100, 5, False, "batch"),
    (MIXED, 128, 8, False, "batch-tuning"),
    (Space({"C": Real(1.0, 1e3, log=True), "g": Real(0, 1)}), None, 4, False, "batch-tuning"),
    (Space({"n": Integer(1, 30), "p": Integer(1, 4)}), 128, 8, False, "batch"),
    (Space({"a": Real(0, 1), "b": Real(-2, 2)}), 64, 8, False, "batch"),
    (Space({f"x{i}": Integer(0, 9) for i in range(25)}), 300, 8, False, "batch-high-dim"),
    (box(30), 300, 4, False, "batch-high-dim"),
    (MIXED, 64, 1, False, "discrete"),
    (
        Space({"C": Real(1.0, 1e3, log=True), "tol": Real(1e-5, 0.1, log=True)}),
        64,
        1,
        False,
        "rescaled",
    ),
    (Space({"frac": Real(0.01, 0.99, logit=True), "w": Real(0, 1)}), None, 1, False, "rescaled"),
    (Space({"a": Real(0, 1), "b": Real(-2, 2)}), 64, 1, False, "low-dim-local"),
    (Space({f"x{i}": Real(1e-3, 1.0, log=True) for i in range(25)}), 300, 1, False, "high-dim"),
    (box(25), 300, 1, True, "high-dim"),
    (box(50), 200, 1, True, "high-dim-short-budget"),
    (box(50), 200, 1, False, "high-dim-short-budget"),
    (box(25), 125, 1, True, "high-dim-short-budget"),
    (box(25), 126, 1, True, "high-dim"),
    (box(50), None, 1, True, "high-dim"),
    (box(50), 101, 1, True, "high-dim"),
    (Space({f"x{i}": Real(1e-3, 1.0, log=True) for i in range(50)}), 100, 1, False, "high-dim"),
    (box(25), 300, 1, False, "high-dim"),
    (box(120), 300, 1, True, "high-dim-short-budget"),
    (box(120), 1000, 1, True, "high-dim"),
    (box(5), 100, 1, False, "low-dim-local"),
    (box(2), None, 1, False, "low-dim-local"),
    (box(5), None, 1, True, "low-dim-local"),
    (box(10), 150, 1, False, "low-dim-local"),
    (box(8), 100, 1, True, "low-dim"),
    (box(12), 100, 1, False, "low-dim"),
]


@pytest.mark.parametrize(("space", "budget", "q", "noisy", "rule"), CASES)
def test_each_rule_fires_where_it_says(space, budget, q, noisy, rule):
    choice = auto.choose(space, budget=budget, batch_size=q, noisy=noisy)
    assert choice.rule == rule
    spec = next(r for r in auto.RULES if r.name == rule)
    assert choice.method == spec.method and choice.when == spec.when


@pytest.mark.parametrize(("space", "budget", "q", "noisy", "rule"), CASES)
def test_every_choice_builds_a_method_that_serves_the_batch(space, budget, q, noisy, rule):
    choice = auto.choose(space, budget=budget, batch_size=q, noisy=noisy)
    common = {"space": space} if isinstance(space, Space) else {}
    m = make_method(choice.method, space.dim, seed=0, batch_size=q, **common, **choice.options)
    X = m.ask()
    assert X.shape == (q, space.dim)
    if q > 1:  # the initial design is served first: tell it, so the method proposes a batch
        m.tell(X, [float(np.sum((x - 0.3) ** 2)) for x in X])
        while m.n_asked < m.n_init:
            X = m.ask()
            m.tell(X, [float(np.sum((x - 0.3) ** 2)) for x in X])
        X = m.ask()
        assert X.shape == (q, space.dim) and len({x.tobytes() for x in X}) == q


def test_tuning_spaces_get_gp_ei_with_optunas_gp_priors_and_the_tuning_options():
    tuning = (
        MIXED,
        Space({"C": Real(1.0, 1e3, log=True)}),
        Space({"n": Integer(1, 30), "kind": Categorical(["a", "b"])}),
        Space({"n": Integer(1, 30), "p": Real(1e-3, 0.5, logit=True)}),
    )
    for space in tuning:
        choice = auto.choose(space, budget=64)
        assert (choice.method, choice.options) == ("gp-ei", dict(auto.TUNING_OPTIONS))


def test_tuning_batches_get_the_kriging_believer_with_the_tuning_options():
    choice = auto.choose(MIXED, budget=128, batch_size=8)
    assert choice.options == dict(auto.TUNING_OPTIONS)
    m = make_method("gp-ei", MIXED.dim, space=MIXED, batch_size=8, **choice.options)
    assert m.believer and m.ei == "logei"


def test_spaces_of_integers_and_linear_reals_get_the_integer_options():
    """Without a categorical or a rescaled real the tuning options lost to the defaults
    (benchmarks/results/auto/tuning_mixint/) and the analytic log EI with the defaults'
    search did not (benchmarks/results/auto/mixint_cost/); a log-scaled integer does not
    count."""
    for space in (
        Space({"a": Integer(0, 7), "b": Integer(0, 15)}),
        Space({"a": Integer(0, 3), "x": Real(-5.0, 5.0)}),
        Space({"a": Integer(10, 5000, log=True), "x": Real(0.0, 1.0)}),
    ):
        choice = auto.choose(space, budget=50)
        assert (choice.method, choice.rule) == ("gp-ei", "discrete")
        assert choice.options == dict(auto.INTEGER_OPTIONS)
        assert choice.options != dict(auto.TUNING_OPTIONS)
    m = make_method("gp-ei", MIXED.dim, space=MIXED, **auto.choose(MIXED).options)
    assert m.priors == "optuna" and m.kernel == "matern52"  # gp-ei's defaults
    assert m.ei == "logei" and m.num_restarts == 3 and m.raw_samples == 128


def test_rules_are_registered_methods_with_a_reason_and_the_last_always_applies():
    names = [r.name for r in (*auto.OUTPUT_RULES, *auto.RULES)]
    assert len(names) == len(set(names))
    root = Path(__file__).resolve().parents[1]
    for r in (*auto.OUTPUT_RULES, *auto.RULES):
        get_method(r.method)  # raises for an unknown name
        assert r.when
        # one short sentence of reason; the numbers live in the report it links
        assert r.reason.endswith(".") and len(r.reason) <= 160 and r.reason.count(". ") == 0
        assert r.report.startswith("benchmarks/results/") and (root / r.report).exists()
    for rules in (auto.RULES, auto.OUTPUT_RULES):
        assert rules[-1].applies(auto.Situation(3, None, 1, False, False, n_constraints=1))
    assert [row[0] for row in auto.explain()] == names


def test_first_applicable_rule_wins(monkeypatch):
    always = auto.Rule("first", "always", lambda s: True, "random", "A test.", "")
    monkeypatch.setattr(auto, "RULES", (always, *auto.RULES))
    assert auto.choose(box(5), budget=100).method == "random"


@pytest.mark.parametrize(
    ("kwargs", "error", "text"),
    [
        ({"budget": 0}, ValueError, "budget"),
        ({"batch_size": 0}, ValueError, "batch_size"),
        ({"noisy": "yes"}, TypeError, "noisy"),
        ({"workers": 0}, ValueError, "workers"),
        ({"workers": 2.5}, TypeError, "workers"),
    ],
)
def test_bad_situation_is_named(kwargs, error, text):
    with pytest.raises(error, match=text):
        auto.choose(box(3), **kwargs)


def test_a_short_high_dimensional_budget_goes_to_cobyqa_for_one_worker_only():
    # COBYQA answers an ask made while its point is pending with a uniform random point
    assert auto.choose(box(30), budget=100).method == "cobyqa"
    several = auto.choose(box(30), budget=100, workers=4)
    assert several.rule == "high-dim" and several.method == "turbo"
    opt = iso.Optimizer(box(30), budget=100, workers=4)
    assert opt.choice is not None and opt.choice.rule == "high-dim"


@pytest.mark.parametrize("d", [2, 10, 15])
def test_asynchronous_workers_on_a_box_get_the_kriging_believer(d):
    assert auto.choose(box(d), budget=100).method in ("cobyqa", "turbo")
    c = auto.choose(box(d), budget=100, workers=4)
    assert c.rule == "asynchronous" and c.method == "gp-ei"
    assert c.options == dict(auto.TUNING_OPTIONS) and c.options["believer"]
    opt = iso.Optimizer(box(d), workers=4)
    assert opt.method_name == "gp-ei" and opt.method.believer


def test_minimize_refuses_workers_and_names_batches_instead():
    with pytest.raises(TypeError, match="batch_size and executor"):
        iso.minimize(lambda x: float(x[0]), box(2), budget=3, workers=4)


def test_auto_rejects_a_named_methods_options_and_non_spaces():
    with pytest.raises(TypeError, match="takes only the options"):
        iso.Optimizer(box(3), "auto", kernel="rbf")
    with pytest.raises(TypeError, match="Box or Space"):
        auto.choose([(0.0, 1.0)])  # type: ignore[arg-type]


def test_auto_is_the_default_of_optimizer_and_minimize():
    opt = iso.Optimizer(box(3), seed=0)
    assert opt.choice is not None and opt.method_name == opt.choice.method == "cobyqa"
    res = iso.minimize(sphere, box(3), budget=5, seed=0)
    assert isinstance(res.choice, auto.Choice) and res.choice.rule == "design-only"
    assert type(res.choice) is type(iso.Optimizer(box(3), seed=0, budget=5).choice)
    assert res.method == "sobol"
    assert iso.Optimizer(box(3), "gp-ei").choice is None


def test_auto_trajectory_is_its_choices_trajectory():
    a = iso.minimize(sphere, box(3), "auto", budget=10, seed=4)
    b = iso.minimize(sphere, box(3), a.method, budget=10, seed=4, **a.options)
    np.testing.assert_array_equal(a.x_iters, b.x_iters)


def test_store_records_the_choice_and_a_resume_keeps_it(tmp_path):
    db = str(tmp_path / "runs.db")
    first = iso.minimize(sphere, box(3), budget=5, seed=1, storage=db, study="s")
    assert first.method == "sobol"  # the budget fits the initial design
    with Store(db) as store:
        rec = store.get_study("s")
        assert rec is not None
        assert rec.method == "sobol" and rec.attrs["auto"]["rule"] == "design-only"
    # a larger budget would choose otherwise; the study goes on with what it started with
    longer = iso.minimize(sphere, box(3), budget=12, seed=1, storage=db, study="s")
    assert longer.method == "sobol" and longer.n_evals == 12
    np.testing.assert_array_equal(longer.x_iters[:5], first.x_iters)
    straight = iso.minimize(sphere, box(3), "sobol", budget=12, seed=1)
    np.testing.assert_array_equal(longer.x_iters, straight.x_iters)


def test_an_auto_study_resumes_with_the_defaults_of_its_choice_then(tmp_path):
    db = str(tmp_path / "runs.db")
    first = iso.minimize(sphere, box(3), budget=8, seed=1, storage=db, study="s")
    assert first.method == "cobyqa"  # its first 2 d + 1 points do not depend on final_radius
    with sqlite3.connect(db) as con:  # as if a default had been other then
        (text,) = con.execute("SELECT attrs FROM studies WHERE name = 's'").fetchone()
        attrs = json.loads(text)
        attrs["defaults"]["final_radius"] = 0.01
        con.execute("UPDATE studies SET attrs = ? WHERE name = 's'", (json.dumps(attrs),))
    longer = iso.minimize(sphere, box(3), budget=10, seed=1, storage=db, study="s")
    straight = iso.minimize(sphere, box(3), "cobyqa", budget=10, seed=1, final_radius=0.01)
    np.testing.assert_array_equal(longer.x_iters, straight.x_iters)


def test_a_typed_auto_study_resumes_exactly_with_the_tuning_options(tmp_path):
    """gp-ei's tuning options keep state across proposals (a fit reused until the data
    grew by 30%); a study stopped and resumed takes the uninterrupted run's points."""

    def f(c: dict) -> float:
        return (np.log10(c["lr"]) + 2.0) ** 2 + (c["depth"] - 5) ** 2 / 9 + (c["act"] == "b")

    db = str(tmp_path / "runs.db")
    first = iso.minimize(f, MIXED, budget=10, seed=3, storage=db, study="s")
    assert first.choice.options == dict(auto.TUNING_OPTIONS)
    longer = iso.minimize(f, MIXED, budget=13, seed=3, storage=db, study="s")
    straight = iso.minimize(f, MIXED, budget=13, seed=3)
    assert longer.x_iters == straight.x_iters and len(longer.x_iters) == 13


def test_resuming_an_auto_study_with_another_method_names_the_choice(tmp_path):
    db = str(tmp_path / "runs.db")
    iso.minimize(sphere, box(3), budget=5, seed=1, storage=db, study="s")
    with pytest.raises(StoreError, match="method='auto' chose 'sobol'"):
        iso.minimize(sphere, box(3), "random", budget=8, seed=1, storage=db, study="s")


def test_noise_changes_the_low_dimensional_choice_not_the_high_dimensional_one():
    assert auto.choose(box(30), budget=200, noisy=True).method == "turbo"
    assert auto.choose(box(30), budget=200, noisy=False).method == "turbo"
    assert auto.choose(box(8), budget=100, noisy=True).rule == "low-dim"
    assert auto.choose(box(8), budget=100, noisy=False).rule == "low-dim-local"


def test_situation_reads_types_from_the_space():
    assert auto.situation(MIXED).discrete
    typed = auto.situation(Space({"a": Real(0, 1), "b": Real(1, 10, log=True)}))
    assert not typed.discrete and typed.rescaled
    assert not auto.situation(Space({"a": Real(0, 1), "n": Integer(1, 9, log=True)})).rescaled
    assert not auto.situation(box(3)).rescaled
    assert dataclasses.asdict(auto.situation(box(4), budget=9))["budget"] == 9


def test_bench_config_accepts_auto_with_noisy_only():
    from isoline.bench.config import _method

    assert _method("auto").name == "auto"
    assert _method({"name": "auto", "options": {"noisy": True}}).options == {"noisy": True}
    with pytest.raises(ValueError, match="only the option 'noisy'"):
        _method({"name": "auto", "options": {"kernel": "rbf"}})


def test_cli_methods_lists_the_rules(capsys):
    from isoline.cli import main

    assert main(["methods", "auto"]) == 0
    out = capsys.readouterr().out
    for r in auto.RULES:
        assert f"{r.name} -> {r.method}" in out and r.report in out


def test_every_named_report_of_auto_exists():
    root = Path(__file__).resolve().parents[1]
    modules = (auto, auto_outputs, auto_rules)
    reports = {k: v for m in modules for k, v in vars(m).items() if k.endswith("_REPORT")}
    assert {
        "OBJECTIVES_LEAN_REPORT",
        "OBJECTIVES_FULL_REPORT",
        "CONSTRAINTS_HIGH_DIM_REPORT",
    } <= set(reports)
    for name, path in reports.items():
        assert path.startswith("benchmarks/results/") and (root / path).is_file(), name


def test_auto_starts_on_a_store_whose_creation_was_cut_short(tmp_path):
    # a kill during the store's creation can leave an empty file; auto reads the file for a
    # stored choice before the run opens it, and must not refuse what the run would finish
    db = tmp_path / "runs.db"
    db.write_bytes(b"")
    res = iso.minimize(sphere, box(2), budget=3, seed=0, storage=str(db), study="s")
    assert res.n_evals == 3 and res.choice is not None
    again = iso.minimize(sphere, box(2), budget=3, seed=0, storage=str(db), study="s")
    np.testing.assert_array_equal(again.x_iters, res.x_iters)
