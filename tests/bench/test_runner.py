import numpy as np
import pytest
import yaml

from isoline.bench.config import load_config, parse_config
from isoline.bench.report import collect, crash_lines, write_report
from isoline.bench.runner import run_bench
from isoline.store import Store

CFG = {
    "name": "t",
    "budget": 6,
    "seeds": 2,
    "methods": ["random", {"name": "cma-es", "label": "CMA", "options": {"sigma0": 0.3}}],
    "problems": [{"name": "rosen-test", "dim": 2}],
}


@pytest.fixture
def rosen_problem(monkeypatch):
    """Register a cheap problem under a test name (the problems package owns real ones)."""
    from isoline import problems
    from isoline.problems.synthetic import Rosenbrock

    problems.register("rosen-test", Rosenbrock, dims=2, default_dim=2, description="test")
    yield
    problems._REGISTRY.pop("rosen-test", None)


def test_config_validation(tmp_path) -> None:
    with pytest.raises(ValueError, match="missing 'budget'"):
        parse_config({"methods": ["random"], "problems": ["ackley"]})
    with pytest.raises(ValueError, match="unknown config key"):
        parse_config(dict(CFG, budgett=3))
    with pytest.raises(ValueError, match="unknown method"):
        parse_config(dict(CFG, methods=["nope"]))
    with pytest.raises(ValueError, match="labels must be unique"):
        parse_config(dict(CFG, methods=["random", "random"]))
    (tmp_path / "x.json").write_text("{}")
    with pytest.raises(ValueError, match=".yaml"):
        load_config(tmp_path / "x.json")
    p = tmp_path / "c.toml"
    p.write_text(
        'name = "x"\nbudget = 3\nmethods = ["random"]\nproblems = [{name = "ackley", dim = 2}]\n'
    )
    cfg = load_config(p)
    assert cfg.name == "x" and cfg.runs()[0].study == "x/ackley-d2/random/seed0"


def test_bench_runs_resumes_and_reports(tmp_path, rosen_problem) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(CFG))
    cfg = load_config(path)
    db = str(tmp_path / "b.db")
    out = run_bench(cfg, db, workers=1, progress=False)
    assert len(out) == 4 and not any(s.skipped for s in out)
    again = run_bench(cfg, db, workers=1, progress=False)
    assert all(s.skipped for s in again)
    with Store(db) as store:
        assert len(store.studies("t/")) == 4
    runs = collect(cfg, db)
    assert {r.spec.method.label for r in runs} == {"random", "CMA"}
    assert all(len(r.values) == 6 and r.optimum == 0.0 for r in runs)
    report = write_report(cfg, db, tmp_path / "rep")
    text = report.read_text()
    assert "| CMA |" in text and "simple regret" in text
    assert "Statistics" not in text
    cfg_stats = parse_config(dict(CFG, report={"against": "CMA"}))
    text = write_report(cfg_stats, db, tmp_path / "rep2").read_text()
    assert "## Statistics" in text and text.count("| rosen-test-d2 | (") == 2
    assert "significantly worse than CMA" in text and "significantly better than CMA" in text
    assert (tmp_path / "rep" / "rosen-test-d2.png").stat().st_size > 1000


def test_bench_in_worker_processes(tmp_path) -> None:
    cfg = parse_config(dict(CFG, problems=[{"name": "rosenbrock", "dim": 2}], seeds=1))
    db = str(tmp_path / "b.db")
    out = run_bench(cfg, db, workers=2, progress=False)
    assert sorted(s.study for s in out) == [
        "t/rosenbrock-d2/CMA/seed0",
        "t/rosenbrock-d2/random/seed0",
    ]
    assert all(s.n_evals == 6 and np.isfinite(s.best) for s in out)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_crashed_run_is_recorded_and_the_others_go_on(tmp_path, workers) -> None:
    """A run that raises (here: its study is stored with other options) does not stop the
    suite; its summary names the error and the CLI's exit status is 1."""
    from isoline.bench.runner import report_crashes

    cfg = parse_config(dict(CFG, problems=[{"name": "rosenbrock", "dim": 2}], seeds=1))
    db = str(tmp_path / "b.db")
    run_bench(cfg, db, workers=workers, progress=False)
    other = dict(CFG["methods"][1], options={"sigma0": 0.2})
    longer = parse_config(
        dict(CFG, budget=8, problems=[{"name": "rosenbrock", "dim": 2}], seeds=1,
             methods=["random", other])
    )  # fmt: skip
    out = {s.study: s for s in run_bench(longer, db, workers=workers, progress=False)}
    crashed = out["t/rosenbrock-d2/CMA/seed0"]
    assert crashed.error is not None and "StoreError" in crashed.error
    assert "sigma0" in crashed.error
    resumed = out["t/rosenbrock-d2/random/seed0"]
    assert resumed.error is None and resumed.n_evals == 8
    assert report_crashes(list(out.values())) == 1
    assert report_crashes([resumed]) == 0


def test_suggestion_time_leaves_out_an_interruption(tmp_path) -> None:
    """A run stopped and resumed: the resume is recorded, and the report's suggestion
    time counts the next batch from it, so it does not depend on how long the
    interruption lasted (moving everything before it a day back changes nothing)."""
    import sqlite3

    cfg = parse_config(dict(CFG, problems=[{"name": "rosenbrock", "dim": 2}], seeds=1,
                            methods=["random"], budget=4))  # fmt: skip
    db = str(tmp_path / "b.db")
    run_bench(cfg, db, workers=1, progress=False)
    longer = parse_config(dict(CFG, problems=[{"name": "rosenbrock", "dim": 2}], seeds=1,
                               methods=["random"], budget=8))  # fmt: skip
    run_bench(longer, db, workers=1, progress=False)
    with Store(db) as store:
        rec = store.get_study("t/rosenbrock-d2/random/seed0")
        assert rec is not None and len(rec.attrs["resumed"]) == 1
    (run,) = collect(longer, db)
    assert len(run.values) == 8
    day = 86400.0
    with sqlite3.connect(db) as conn:  # the interruption becomes a day longer
        conn.execute("UPDATE studies SET created = created - ?", (day,))
        conn.execute(
            "UPDATE trials SET started = started - ?, finished = finished - ? WHERE number < 4",
            (day, day),
        )
    (paused,) = collect(longer, db)
    assert paused.wall_time == pytest.approx(run.wall_time + day)  # the shift took effect
    assert paused.suggest_time == pytest.approx(run.suggest_time, abs=1e-6)


def test_bad_workers(tmp_path, rosen_problem) -> None:
    cfg = parse_config(CFG)
    with pytest.raises(ValueError, match="workers"):
        run_bench(cfg, str(tmp_path / "b.db"), workers=0)


def test_bench_on_a_dask_cluster(tmp_path) -> None:
    distributed = pytest.importorskip("dask.distributed")
    cfg = parse_config(dict(CFG, problems=[{"name": "rosenbrock", "dim": 2}], seeds=1))
    db = str(tmp_path / "b.db")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:  # fmt: skip
        out = run_bench(cfg, db, dask_address=cluster.scheduler_address, progress=False)
    assert len(out) == 2 and all(s.n_evals == 6 for s in out)


def test_unreachable_dask_address_is_a_clear_error(tmp_path, monkeypatch, rosen_problem) -> None:
    pytest.importorskip("dask.distributed")
    from isoline import parallel

    monkeypatch.setattr(parallel, "DASK_CONNECT_TIMEOUT", 1.0)
    cfg = parse_config(CFG)
    with pytest.raises(ConnectionError, match="cannot reach the Dask scheduler"):
        run_bench(cfg, str(tmp_path / "b.db"), dask_address="tcp://127.0.0.1:1", progress=False)


def test_sigterm_stops_worker_processes(tmp_path) -> None:
    """`kill` of `isoline bench --workers 2` ends the command and its pool workers."""
    import signal
    import subprocess
    import sys
    import time

    psutil = pytest.importorskip("psutil")
    cfg = dict(CFG, budget=400, seeds=4, methods=["gp-ei"], problems=[{"name": "ackley", "dim": 3}])
    path = tmp_path / "slow.yaml"
    path.write_text(yaml.safe_dump(cfg))
    db = tmp_path / "slow.db"
    cmd = [sys.executable, "-m", "isoline.cli", "bench", str(path), "--storage", str(db),
           "--out", str(tmp_path / "rep"), "--workers", "2", "--quiet"]  # fmt: skip
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)
    parent = psutil.Process(proc.pid)
    workers: list = []
    try:
        deadline = time.time() + 120
        while time.time() < deadline and len(workers) < 2:
            time.sleep(0.5)
            workers = [
                c for c in parent.children(recursive=True) if "spawn_main" in " ".join(c.cmdline())
            ]
        assert len(workers) == 2, "the pool did not start"
        time.sleep(3)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 130 and "resume" in err
        _, alive = psutil.wait_procs(workers, timeout=15)
        assert not alive, f"workers still running: {[p.pid for p in alive]}"
    finally:  # never leak processes from a failing run of this test
        for p in [*workers, parent]:
            if p.is_running():
                p.kill()


def test_from_problem_options_take_the_problems_hints() -> None:
    from isoline import problems
    from isoline.bench.runner import resolve_options

    p = problems.get("gp-sample", dim=3, seed=4, n_points=50)
    opts = resolve_options({"lengthscale": "from-problem", "noise": "from-problem", "beta": 2.0}, p)
    assert opts["lengthscale"] == list(p.lengthscales) and opts["beta"] == 2.0
    assert opts["noise"] == pytest.approx(0.01)
    with pytest.raises(ValueError, match="has no hint 'lengthscale'"):
        resolve_options({"lengthscale": "from-problem"}, problems.get("ackley", dim=2))


def test_bench_on_a_typed_problem_reports_its_best_configurations(tmp_path) -> None:
    cfg = parse_config(
        {
            "name": "typed",
            "budget": 4,
            "seeds": 1,
            "methods": ["random"],
            "problems": [{"name": "hpo-sklearn", "dim": 0, "model": "kNN", "dataset": "iris"}],
        }
    )
    db = str(tmp_path / "t.db")
    run_bench(cfg, db, workers=1, progress=False)
    (run,) = collect(cfg, db)
    assert set(run.best_point) == {"n_neighbors", "p"}
    assert all(type(v) is int for v in run.best_point.values())
    text = write_report(cfg, db, tmp_path / "rep").read_text()
    assert "- random: best value" in text and "n_neighbors: " in text


def test_auto_in_a_config_is_told_whether_the_problem_is_noisy(tmp_path) -> None:
    cfg = parse_config({
        "name": "a", "budget": 21, "seeds": 1, "methods": ["auto"],
        "problems": [{"name": "ackley", "dim": 8, "label": "clean"},
                     {"name": "ackley", "dim": 8, "noise_std": 0.1, "label": "noisy"}],
    })  # fmt: skip
    db = str(tmp_path / "a.db")
    run_bench(cfg, db, workers=1, progress=False)
    with Store(db) as store:
        chosen = {s.split("/")[1]: store.get_study(s).method for s in (r.study for r in cfg.runs())}
    assert chosen == {"clean": "cobyqa", "noisy": "turbo"}


def test_a_run_that_stopped_on_an_exception_is_named_in_the_report(tmp_path, rosen_problem):
    import isoline as iso
    from isoline.bench.runner import make_problem

    cfg = parse_config(dict(CFG, seeds=1, methods=["random"]))
    (spec,) = cfg.runs()
    problem = make_problem(spec)
    db = str(tmp_path / "b.db")
    calls = {"n": 0}

    def f(x):
        calls["n"] += 1
        if calls["n"] == 4:
            raise ValueError("solver diverged")
        return problem(x)

    with pytest.raises(RuntimeError, match="solver diverged"):
        iso.minimize(f, problem.space, "random", budget=spec.budget, seed=spec.seed,
                     storage=db, study=spec.study, raise_on_error=True)  # fmt: skip
    (run,) = collect(cfg, db)
    assert run.crash is not None and "solver diverged" in run.crash
    (line,) = [x for x in crash_lines([run]) if x.startswith("- ")]
    assert spec.study in line and "after 4 evaluations" in line
    report = write_report(cfg, db, tmp_path / "rep").read_text()
    assert "## Crashed runs" in report and "solver diverged" in report
    # resumed to the end, it is no longer reported as crashed
    iso.minimize(problem, problem.space, "random", budget=spec.budget, seed=spec.seed,
                 storage=db, study=spec.study)  # fmt: skip
    (run,) = collect(cfg, db)
    assert run.crash is None and crash_lines([run]) == []


def test_each_run_records_its_package_versions_and_the_report_lists_them(
    tmp_path, rosen_problem
) -> None:
    import json
    import sqlite3
    from importlib import metadata

    from isoline.bench.report import version_lines

    cfg = parse_config(dict(CFG, seeds=2, methods=["random"]))
    db = str(tmp_path / "v.db")
    run_bench(cfg, db, workers=1, progress=False)
    runs = collect(cfg, db)
    assert {r.versions["numpy"] for r in runs} == {metadata.version("numpy")}
    assert runs[0].versions["torch"] == metadata.version("torch")
    # a run stored before versions were recorded, and one made in another environment
    con = sqlite3.connect(db)
    (first, attrs), (second, _) = con.execute("SELECT name, attrs FROM studies ORDER BY study_id")
    old = json.loads(attrs)
    del old["versions"]
    con.execute("UPDATE studies SET attrs = ? WHERE name = ?", (json.dumps(old), first))
    con.commit()
    con.close()
    runs = collect(cfg, db)
    runs[1].versions = dict(runs[1].versions, numpy="1.0")
    lines = version_lines(runs)
    assert lines[0] == "## Package versions"
    assert "- 1 runs: not recorded" in lines
    assert sum("numpy 1.0," in x for x in lines) == 1
    report = write_report(cfg, db, tmp_path / "rep").read_text()
    assert "## Package versions" in report and f"numpy {metadata.version('numpy')}" in report


def test_a_config_timeout_reaches_every_run(tmp_path, monkeypatch) -> None:
    import isoline.runs
    from isoline.bench.runner import run_one

    with pytest.raises(ValueError, match="timeout must be a finite number > 0"):
        parse_config(dict(CFG, timeout=0))
    cfg = parse_config(dict(CFG, problems=[{"name": "rosenbrock", "dim": 2}], timeout=2.5))
    assert {spec.timeout for spec in cfg.runs()} == {2.5}
    given = []
    real = isoline.runs.optimize

    def spy(*args, **kwargs):
        given.append(kwargs["timeout"])
        return real(*args, **kwargs)

    monkeypatch.setattr(isoline.runs, "optimize", spy)
    summary = run_one(cfg.runs()[0], str(tmp_path / "b.db"))
    assert given == [2.5] and summary.n_evals == 6


def test_the_best_point_of_a_conditional_run_holds_its_active_parameters() -> None:
    from types import SimpleNamespace

    import isoline as iso
    from isoline.bench.run_data import _best_point

    space = iso.Space({"k": iso.Categorical(["a", "b"]), "n": iso.Integer(0, 2)}, {"n": {"k": "b"}})
    trials = [SimpleNamespace(x={"k": "b", "n": 1}), SimpleNamespace(x={"k": "a"})]
    best = _best_point(trials, np.array([2.0, 1.0]), space.to_dict())  # type: ignore[arg-type]
    assert best == {"k": "a"}


def test_part_lines_list_runs_and_deletions_in_order():
    from isoline.bench.report import part_lines

    parts = [
        {"commit": "abc1234", "started": "2026-11-28 21:49", "command": "field.py run C --seeds 0"},
        {
            "deleted": "2026-11-28 21:50",
            "studies": "auto seed 0",
            "why": "rule changed",
            "command": "isoline delete S --match '/auto/'",
        },
        {"commit": "def5678", "started": "2026-11-28 22:06", "command": "field.py run C --seeds 0"},
    ]
    assert part_lines(parts) == [
        "    abc1234 2026-11-28 21:49: field.py run C --seeds 0",
        "    deleted 2026-11-28 21:50: auto seed 0 (rule changed): isoline delete S --match '/auto/'",
        "    def5678 2026-11-28 22:06: field.py run C --seeds 0",
    ]
