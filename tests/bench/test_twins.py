"""An auto run that repeats another contender's run of its cell is stored as its copy
(isoline.bench.twins): the copy must be the trajectory auto itself would make, resume as
an auto study and be counted by the report."""

import dataclasses

import numpy as np

from isoline.auto import OBJECTIVES_OPTIONS
from isoline.bench.config import parse_config
from isoline.bench.preflight import make_problem
from isoline.bench.report import collect, copy_lines
from isoline.bench.runner import ProblemObjective, run_bench
from isoline.methods.registry import settled_options
from isoline.runs import optimize
from isoline.store import Store

# auto picks cobyqa with its defaults for a continuous box at d = 2 (rule low-dim-local)
CFG = {
    "name": "tw",
    "budget": 9,
    "seeds": [3],
    "methods": [
        "auto",
        {"name": "cobyqa", "label": "plain cobyqa"},
        {"name": "cobyqa", "label": "wide cobyqa", "options": {"radius": 0.4}},
    ],
    "problems": [{"name": "levy", "dim": 2}],
}


def _values(store: Store, name: str) -> list[float]:
    rec = store.get_study(name)
    assert rec is not None
    return [t.y for t in store.trials(rec)]


def test_an_auto_run_is_stored_as_a_copy_of_the_run_it_repeats(tmp_path) -> None:
    cfg = parse_config(CFG)
    db = str(tmp_path / "b.db")
    run_bench(cfg, db, workers=1, progress=False)
    auto_name, plain, wide = (r.study for r in cfg.runs())
    with Store(db) as store:
        rec = store.get_study(auto_name)
        assert rec is not None and rec.finished
        assert rec.attrs["copied_from"] == plain
        assert rec.attrs["auto"]["method"] == "cobyqa"
        copied = _values(store, auto_name)
        assert copied == _values(store, plain) != _values(store, wide)
    # the premise: auto's own run is that trajectory
    spec = cfg.runs()[0]
    problem = make_problem(spec)
    own = optimize(ProblemObjective(problem), problem.space, method="auto", budget=9, seed=3)
    np.testing.assert_array_equal(own.values[:, 0], copied)
    # the copy resumes as an auto study: a larger budget goes on from its nine values
    more = optimize(ProblemObjective(problem), problem.space, method="auto", budget=11,
                    seed=3, storage=db, study=auto_name)  # fmt: skip
    longer = optimize(ProblemObjective(problem), problem.space, method="auto", budget=11, seed=3)
    np.testing.assert_array_equal(more.values, longer.values)
    runs = collect(cfg, db)
    assert [r.copied_from for r in runs] == [plain, None, None]
    assert "1 of 'plain cobyqa'" in " ".join(copy_lines(runs))


def test_auto_runs_itself_when_no_contender_repeats_it(tmp_path) -> None:
    cfg = parse_config({**CFG, "methods": ["auto", CFG["methods"][2]]})
    db = str(tmp_path / "b.db")
    run_bench(cfg, db, workers=1, progress=False)
    with Store(db) as store:
        rec = store.get_study(cfg.runs()[0].study)
        assert rec is not None and rec.finished and "copied_from" not in rec.attrs
    assert copy_lines(collect(cfg, db)) == []


def test_options_that_settle_alike_are_twins() -> None:
    # gp-ei's mo_acquisition "auto" is EHVI up to three objectives and batches of four
    ehvi = settled_options("gp-ei", {"mo_acquisition": "ehvi"}, 2, 1)
    assert settled_options("gp-ei", {}, 2, 1) == ehvi
    assert settled_options("gp-ei", {"mo_acquisition": "parego"}, 2, 1) != ehvi
    assert settled_options("gp-ei", {}, 4, 1) == settled_options(
        "gp-ei", {"mo_acquisition": "parego"}, 4, 1
    )
    # a batch of 8 settles to EHVI or ParEGO by the size of its last part: not fixed
    assert settled_options("gp-ei", {}, 2, 8)["mo_acquisition"] == "auto"
    # with one objective the option does not act
    assert settled_options("gp-ei", {"mo_acquisition": "parego"}, 1, 1) == settled_options(
        "gp-ei", {}, 1, 1
    )
    assert settled_options("gp-ei", {"ei": "logei"}, 1, 1) != settled_options("gp-ei", {}, 1, 1)


def test_a_multi_objective_auto_run_copies_gp_ei_with_its_options(tmp_path) -> None:
    cfg = parse_config({
        "name": "mo", "budget": 7, "seeds": [1], "problems": ["branin-currin"],
        "methods": ["auto", {"name": "gp-ei", "label": "parego",
                             "options": dict(OBJECTIVES_OPTIONS)}],
    })  # fmt: skip
    db = str(tmp_path / "b.db")
    run_bench(cfg, db, workers=1, progress=False)
    auto_name, ehvi = (r.study for r in cfg.runs())
    with Store(db) as store:
        rec = store.get_study(auto_name)
        assert rec is not None and rec.attrs["copied_from"] == ehvi
        copied = store.trials(rec)
    problem = make_problem(cfg.runs()[0])
    own = optimize(ProblemObjective(problem), problem.space, direction=problem.objective,
                   method="auto", budget=7, seed=1)  # fmt: skip
    np.testing.assert_array_equal(own.values, np.array([t.outputs for t in copied]))


def test_an_auto_run_selected_alone_copies_a_contender_left_out_of_the_call(tmp_path) -> None:
    cfg = parse_config(CFG)
    db = str(tmp_path / "b.db")
    plain_only = dataclasses.replace(cfg, methods=[cfg.methods[1]])
    run_bench(plain_only, db, workers=1, progress=False)
    auto_only = dataclasses.replace(cfg, methods=[cfg.methods[0]])
    run_bench(auto_only, db, workers=1, progress=False, others=plain_only.runs())
    with Store(db) as store:
        rec = store.get_study(auto_only.runs()[0].study)
        assert rec is not None and rec.attrs["copied_from"] == plain_only.runs()[0].study
