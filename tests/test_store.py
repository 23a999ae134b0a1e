import json
import sqlite3

import numpy as np
import pytest

import isoline as iso
from isoline.store import Store, StoreError


def sphere(x):
    return float(np.sum(x**2))


def test_every_evaluation_is_committed_as_it_arrives(tmp_path) -> None:
    db = tmp_path / "r.db"
    seen = []

    def f(x):
        # another connection sees all earlier evaluations while this one runs
        with sqlite3.connect(db) as conn:
            seen.append(conn.execute("SELECT COUNT(*) FROM trials WHERE status='ok'").fetchone()[0])
        return sphere(x)

    iso.minimize(f, iso.Box([-1, -1], [1, 1]), "random", budget=5, storage=str(db), study="s")
    assert seen == [0, 1, 2, 3, 4]
    with Store(db) as store:
        rec = store.get_study("s")
        trials = store.trials(rec)
        assert rec.finished and rec.method == "random" and rec.seed == 0
        assert [t.status for t in trials] == ["ok"] * 5
        assert all(t.started <= t.finished for t in trials)
        np.testing.assert_allclose([t.y for t in trials], [sphere(t.x) for t in trials])


def test_failed_evaluations_store_error_text(tmp_path) -> None:
    def f(x):
        raise ValueError("bad region")

    db = str(tmp_path / "r.db")
    res = iso.minimize(f, iso.Box([0], [1]), "random", budget=3, storage=db, study="s")
    assert res.n_failed == 3
    with Store(db) as store:
        t = store.trials(store.get_study("s"))[0]
        assert t.status == "failed" and "bad region" in t.error and t.y is None


def test_raise_on_error_keeps_history(tmp_path) -> None:
    n = {"calls": 0}

    def f(x):
        n["calls"] += 1
        if n["calls"] == 3:
            raise ValueError("third call fails")
        return sphere(x)

    db = str(tmp_path / "r.db")
    with pytest.raises(RuntimeError, match="third call fails"):
        iso.minimize(
            f, iso.Box([0], [1]), "random", budget=5, storage=db, study="s", raise_on_error=True
        )
    with Store(db) as store:
        rec = store.get_study("s")
        statuses = [t.status for t in store.trials(rec)]
    assert statuses == ["ok", "ok", "failed"]
    # the run stopped on an exception: the study says which, for reports
    (crash,) = rec.attrs["crashes"]
    assert "third call fails" in crash["error"] and crash["error"].startswith("RuntimeError")
    assert not rec.finished


def test_an_interrupted_run_is_not_recorded_as_a_crash(tmp_path) -> None:
    def f(x):
        raise KeyboardInterrupt

    db = str(tmp_path / "r.db")
    with pytest.raises(KeyboardInterrupt):
        iso.minimize(f, iso.Box([0], [1]), "random", budget=3, storage=db, study="s")
    with Store(db) as store:
        assert "crashes" not in store.get_study("s").attrs


def test_foreign_files_are_refused_not_overwritten(tmp_path) -> None:
    text = tmp_path / "notes.db"
    text.write_text("hello, I am not a database")
    with pytest.raises(StoreError, match="not a SQLite database"):
        Store(text)
    assert text.read_text() == "hello, I am not a database"

    foreign = tmp_path / "foreign.db"
    with sqlite3.connect(foreign) as conn:
        conn.execute("CREATE TABLE customers (id INTEGER)")
    with pytest.raises(StoreError, match="did not create"):
        Store(foreign)
    with sqlite3.connect(foreign) as conn:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master")]
    assert tables == ["customers"]


def test_resume_with_other_settings_is_refused(tmp_path) -> None:
    db = str(tmp_path / "r.db")
    box = iso.Box([0, 0], [1, 1])
    iso.minimize(sphere, box, "random", budget=3, seed=1, storage=db, study="s")
    with pytest.raises(StoreError, match="seed"):
        iso.minimize(sphere, box, "random", budget=3, seed=2, storage=db, study="s")
    with pytest.raises(StoreError, match="method"):
        iso.minimize(sphere, box, "sobol", budget=3, seed=1, storage=db, study="s")


def _edit_attrs(db: str, study: str, edit) -> None:
    con = sqlite3.connect(db)
    (text,) = con.execute("SELECT attrs FROM studies WHERE name = ?", (study,)).fetchone()
    attrs = json.loads(text)
    edit(attrs)
    con.execute("UPDATE studies SET attrs = ? WHERE name = ?", (json.dumps(attrs), study))
    con.commit()
    con.close()


def test_options_compare_by_their_effective_values_across_default_changes(tmp_path) -> None:
    db = str(tmp_path / "r.db")
    box = iso.Box([0, 0], [1, 1])
    iso.minimize(sphere, box, "gp-ei", budget=3, seed=1, storage=db, study="s")
    # a default given explicitly is the same setting
    iso.minimize(sphere, box, "gp-ei", budget=3, seed=1, storage=db, study="s", num_restarts=10)
    _edit_attrs(db, "s", lambda a: a["defaults"].update(num_restarts=5))
    with pytest.raises(StoreError) as err:
        iso.minimize(sphere, box, "gp-ei", budget=4, seed=1, storage=db, study="s")
    assert "num_restarts: stored 5 (the default then), given 10 (the default now)" in str(err.value)
    assert "pass num_restarts=5" in str(err.value)
    res = iso.minimize(
        sphere, box, "gp-ei", budget=4, seed=1, storage=db, study="s", num_restarts=5
    )
    assert len(res.func_vals) == 4


def test_a_study_from_before_an_option_existed_resumes_as_it_ran(tmp_path) -> None:
    db = str(tmp_path / "r.db")
    box = iso.Box([0, 0], [1, 1])
    first = iso.minimize(sphere, box, "cobyqa", budget=3, seed=1, storage=db, study="s",
                         start_spread=0.0)  # fmt: skip
    _edit_attrs(db, "s", lambda a: a["defaults"].pop("start_spread"))  # before the option
    con = sqlite3.connect(db)
    options = json.dumps({"n_init": None, "init": None})  # given no options
    con.execute("UPDATE studies SET options = ? WHERE name = 's'", (options,))
    con.commit()
    con.close()
    res = iso.minimize(
        sphere, box, "cobyqa", budget=5, seed=1, storage=db, study="s", start_spread=0.0
    )
    np.testing.assert_array_equal(res.x_iters[:3], first.x_iters)
    with pytest.raises(StoreError, match="start_spread: stored 0.0"):
        iso.minimize(
            sphere, box, "cobyqa", budget=6, seed=1, storage=db, study="s", start_spread=0.2
        )


def test_a_study_without_recorded_defaults_resumes_with_the_old_ones(tmp_path) -> None:
    db = str(tmp_path / "r.db")
    box = iso.Box([0, 0], [1, 1])
    iso.minimize(sphere, box, "gp-ei", budget=3, seed=1, storage=db, study="s")
    _edit_attrs(db, "s", lambda a: a.pop("defaults"))  # as isoline wrote it before 0.x
    with pytest.raises(StoreError, match="pass kernel='rbf', priors='botorch'"):
        iso.minimize(sphere, box, "gp-ei", budget=4, seed=1, storage=db, study="s")
    res = iso.minimize(
        sphere, box, "gp-ei", budget=4, seed=1, storage=db, study="s",
        kernel="rbf", priors="botorch",
    )  # fmt: skip
    assert len(res.func_vals) == 4


def test_larger_budget_continues_a_finished_study(tmp_path) -> None:
    db = str(tmp_path / "r.db")
    box = iso.Box([0, 0], [1, 1])
    short = iso.minimize(sphere, box, "cma-es", budget=6, seed=1, storage=db, study="s")
    longer = iso.minimize(sphere, box, "cma-es", budget=14, seed=1, storage=db, study="s")
    straight = iso.minimize(sphere, box, "cma-es", budget=14, seed=1)
    np.testing.assert_array_equal(longer.x_iters[:6], short.x_iters)
    np.testing.assert_array_equal(longer.x_iters, straight.x_iters)


def test_a_smaller_budget_on_resume_leaves_the_study_unfinished(tmp_path) -> None:
    """Stopped at 5 of 10, resumed with budget 3: nothing runs, the study keeps its budget
    and stays unfinished (a merge copies it as such), and says so; budget 10 goes on."""
    db = str(tmp_path / "r.db")
    box = iso.Box([0, 0], [1, 1])

    def stop_at_five(res):
        return len(res.func_vals) >= 5

    iso.minimize(sphere, box, "random", budget=10, seed=1, storage=db, study="s",
                 callback=stop_at_five)  # fmt: skip
    low = iso.minimize(sphere, box, "random", budget=3, seed=1, storage=db, study="s")
    assert low.n_evals == 5 and "the study's is 10, so it stays unfinished" in low.stop_reason
    with Store(db, readonly=True) as store:
        rec = store.get_study("s")
        assert rec.budget == 10 and not rec.finished
    assert (
        iso.minimize(sphere, box, "random", budget=10, seed=1, storage=db, study="s").n_evals == 10
    )


def test_a_second_run_of_one_study_is_refused_before_it_evaluates(tmp_path) -> None:
    """While a run owns a study, another run of it stops at once and the first goes on."""
    db = str(tmp_path / "r.db")
    box = iso.Box([0, 0], [1, 1])
    refused: list[Exception] = []
    inner_calls = []

    def inner_objective(x):
        inner_calls.append(x)
        return sphere(x)

    def first_objective(x):
        if not refused:  # meanwhile, "another run" tries the same study
            try:
                iso.minimize(
                    inner_objective, box, "random", budget=3, seed=1, storage=db, study="s"
                )
            except StoreError as e:
                refused.append(e)
        return sphere(x)

    res = iso.minimize(first_objective, box, "random", budget=3, seed=1, storage=db, study="s")
    assert res.n_evals == 3 and res.n_failed == 0
    assert refused and "is being run by process" in str(refused[0])
    assert inner_calls == []
    with Store(db) as store:
        trials = store.trials(store.get_study("s"))
    assert [t.number for t in trials] == [0, 1, 2] and [t.batch for t in trials] == [0, 1, 2]


def _rows(db, name):
    with sqlite3.connect(db) as conn:
        study = conn.execute(
            "SELECT method, seed, batch_size, options, space, budget, attrs, created,"
            " state_batch, finished, resume_format FROM studies WHERE name = ?",
            (name,),
        ).fetchone()
        trials = conn.execute(
            "SELECT t.number, t.batch, t.x, t.u, t.y, t.status, t.error, t.info, t.started,"
            " t.finished, t.attempts FROM trials t JOIN studies s USING (study_id)"
            " WHERE s.name = ? ORDER BY t.number",
            (name,),
        ).fetchall()
    return study, trials


def _interrupted_run(db, box, after):
    calls = {"n": 0}

    def f(x):
        calls["n"] += 1
        if calls["n"] > after:
            raise KeyboardInterrupt
        return sphere(x)

    with pytest.raises(KeyboardInterrupt):
        iso.minimize(f, box, "cma-es", budget=12, seed=2, storage=db, study="cut")


def test_copied_studies_keep_every_stored_field_and_existing_names_are_left_alone(
    tmp_path,
) -> None:
    src, dst = str(tmp_path / "a.db"), str(tmp_path / "b.db")
    box = iso.Box([-1, -1], [1, 1])

    def failing_half(x):
        if x[0] > 0:
            raise ValueError("right half fails")
        return sphere(x)

    iso.minimize(failing_half, box, "random", budget=6, seed=1, storage=src, study="r")
    iso.minimize(sphere, box, "gp-ei", budget=5, batch_size=2, storage=src, study="g")
    _interrupted_run(src, box, after=4)
    iso.minimize(sphere, box, "random", budget=3, seed=9, storage=dst, study="g")
    before = _rows(dst, "g")
    with Store(src, readonly=True) as source, Store(dst) as target:
        copied, skipped, refused = target.copy_studies(source)
        assert (copied, skipped, refused) == (["r"], ["g"], [])  # "cut" is unfinished
        again = target.copy_studies(source)
        assert again == ([], ["r", "g"], [])
    assert _rows(dst, "r") == _rows(src, "r")
    assert any(t[5] == "failed" and "right half" in t[6] for t in _rows(dst, "r")[1])
    assert _rows(dst, "g") == before


def test_unfinished_studies_are_copied_only_when_asked_and_resume_exactly(tmp_path) -> None:
    src, dst = str(tmp_path / "a.db"), str(tmp_path / "b.db")
    box = iso.Box([-1, -1], [1, 1])
    _interrupted_run(src, box, after=5)
    with Store(src, readonly=True) as source, Store(dst) as target:
        with pytest.raises(StoreError, match="'cut'.*unfinished"):
            target.copy_studies(source, ["cut"])
        with pytest.raises(StoreError, match="no study 'nope'"):
            target.copy_studies(source, ["nope"])
        with pytest.raises(StoreError, match="into itself"):
            source.copy_studies(source)
        assert target.copy_studies(source, ["cut"], unfinished=True) == (["cut"], [], [])
    resumed = iso.minimize(sphere, box, "cma-es", budget=12, seed=2, storage=dst, study="cut")
    straight = iso.minimize(sphere, box, "cma-es", budget=12, seed=2)
    np.testing.assert_array_equal(resumed.x_iters, straight.x_iters)
    assert _rows(src, "cut")[0][9] == 0  # the source is not written


def test_cli_merge_copies_finished_studies_by_prefix(tmp_path, capsys) -> None:
    from isoline.cli import main

    src, dst = str(tmp_path / "a.db"), str(tmp_path / "b.db")
    box = iso.Box([0], [1])
    for name in ("keep-1", "keep-2", "other"):
        iso.minimize(sphere, box, "random", budget=2, storage=src, study=name)
    assert main(["merge", dst, src, "--prefix", "keep-"]) == 0
    assert "copied 2 studies" in capsys.readouterr().out
    with Store(dst, readonly=True) as store:
        assert [s.name for s in store.studies()] == ["keep-1", "keep-2"]
    assert main(["merge", dst, src]) == 0  # the two already there are named, not copied
    out = capsys.readouterr().out
    assert "copied 1 studies" in out and "2 already there" in out
    assert f"  left keep-1: {dst} has a study of that name" in out and "left other" not in out
    assert main(["merge", dst, str(tmp_path / "missing.db")]) == 2
    assert "no store at" in capsys.readouterr().err


def test_deleted_studies_are_gone_and_run_again_from_scratch(tmp_path) -> None:
    db = str(tmp_path / "s.db")
    box = iso.Box([-1, -1], [1, 1])
    first = iso.minimize(sphere, box, "random", budget=4, seed=1, storage=db, study="a")
    iso.minimize(sphere, box, "random", budget=3, seed=2, storage=db, study="b")
    with Store(db) as store:
        assert store.delete_studies(["a"]) == ["a"]
        assert [s.name for s in store.studies()] == ["b"]
        assert store.conn.execute("SELECT COUNT(*) FROM trials").fetchone()[0] == 3
        with pytest.raises(StoreError, match="no study 'a'"):
            store.delete_studies(["b", "a"])
        assert store.get_study("b") is not None  # nothing deleted on error
    again = iso.minimize(sphere, box, "random", budget=4, seed=3, storage=db, study="a")
    assert again.n_evals == 4 and not np.array_equal(again.x_iters, first.x_iters)


def test_a_study_held_by_a_live_run_is_not_deleted(tmp_path) -> None:
    db = str(tmp_path / "s.db")
    iso.minimize(sphere, iso.Box([0], [1]), "random", budget=2, storage=db, study="a")
    with Store(db) as owner, Store(db) as other:
        lease = owner.acquire(owner.get_study("a"))
        with pytest.raises(StoreError, match="'a' is being run by process"):
            other.delete_studies(["a"])
        lease.release()
        assert other.delete_studies(["a"]) == ["a"]


def test_cli_delete_by_name_and_regex_with_a_dry_run(tmp_path, capsys) -> None:
    from isoline.cli import main

    db = str(tmp_path / "s.db")
    for name in ("suite/p1/auto/seed0", "suite/p1/gp-ei/seed0", "suite/p2/auto/seed0", "x"):
        iso.minimize(sphere, iso.Box([0], [1]), "random", budget=2, storage=db, study=name)
    assert main(["delete", db, "--match", "/auto/", "--dry-run"]) == 0
    assert "would delete 2 studies" in capsys.readouterr().out
    with Store(db, readonly=True) as store:
        assert len(store.studies()) == 4
    assert main(["delete", db, "x", "--match", "/auto/"]) == 0
    out = capsys.readouterr().out
    assert "deleted 3 studies" in out and "suite/p2/auto/seed0" in out
    with Store(db, readonly=True) as store:
        assert [s.name for s in store.studies()] == ["suite/p1/gp-ei/seed0"]
    assert main(["delete", db]) == 2
    assert "--match" in capsys.readouterr().err
    assert main(["delete", db, "--match", "("]) == 2
    assert "not a regular expression" in capsys.readouterr().err
    assert main(["delete", db, "nope", "--dry-run"]) == 2
    assert "no study 'nope'" in capsys.readouterr().err


def _outputs_study(x):
    """Two objectives and a constraint; the constraint is NaN (a failed evaluation that
    keeps its other outputs) in one quadrant."""
    c = np.nan if x[0] > 0.3 and x[1] < 0.0 else float(x[0] + x[1] - 0.5)
    return {"f": float(np.sum(x**2)), "g": -float(np.sum((x - 0.5) ** 2)), "c": c}


_SPEC = {"directions": ["minimize", "maximize"], "objectives": ["f", "g"], "constraints": ["c"]}


def test_merge_copies_rows_of_outputs_and_the_merged_study_resumes_and_reports(
    tmp_path, capsys
) -> None:
    from isoline.cli import main
    from isoline.results import load

    src, dst = str(tmp_path / "a.db"), str(tmp_path / "b.db")
    box, calls = iso.Box([-1, -1], [1, 1]), {"n": 0}

    def cut(x):
        calls["n"] += 1
        if calls["n"] > 9:
            raise KeyboardInterrupt
        return _outputs_study(x)

    run = dict(method="random", budget=12, seed=3, **_SPEC)
    iso.optimize(_outputs_study, box, storage=src, study="done", **run)
    with pytest.raises(KeyboardInterrupt):
        iso.optimize(cut, box, storage=src, study="cut", **run)
    assert main(["merge", dst, src, "--unfinished"]) == 0
    capsys.readouterr()

    def outputs(db, name):
        with sqlite3.connect(db) as conn:
            return conn.execute(
                "SELECT t.number, t.status, t.outputs FROM trials t JOIN studies s"
                " USING (study_id) WHERE s.name = ? ORDER BY t.number",
                (name,),
            ).fetchall()

    for name in ("done", "cut"):
        assert _rows(dst, name) == _rows(src, name)
        assert outputs(dst, name) == outputs(src, name)
    with iso.Store(dst) as store:
        record = store.get_study("done")
        assert record is not None and record.directions == ("minimize", "maximize")
        with pytest.raises(ValueError, match="2 objectives"):
            record.direction  # noqa: B018
    rows = outputs(dst, "done")
    assert all(len(json.loads(r[2])) == 3 for r in rows)
    failed = [json.loads(r[2]) for r in rows if r[1] == "failed"]
    assert failed and all(f[0] is not None and f[2] is None for f in failed)

    resumed = iso.optimize(_outputs_study, box, storage=dst, study="cut", **run)
    straight = iso.optimize(_outputs_study, box, **run)
    np.testing.assert_array_equal(resumed.x_iters, straight.x_iters)
    np.testing.assert_array_equal(resumed.values, straight.values)
    # what `isoline report` draws from (its plots are tested in test_outputs_run.py)
    merged = load(dst, "cut")
    assert merged.output_names == ("f", "g", "c")
    np.testing.assert_array_equal(merged.values, straight.values)
    np.testing.assert_array_equal(merged.feasible, straight.feasible)
    assert not merged.feasible.all() and merged.feasible.any()
    for got, want in zip(merged.pareto_front(), straight.pareto_front(), strict=True):
        np.testing.assert_array_equal(got, want)
    assert merged.hypervolume() == straight.hypervolume() > 0


def test_a_store_in_a_folder_nobody_may_write_is_read_all_the_same(tmp_path, monkeypatch) -> None:
    """``iso.load`` of a store someone sent: when SQLite cannot make its -wal/-shm files
    beside it (a read-only folder, simulated here: the test may run as root), the file
    is read as immutable instead of being called "not a SQLite database"."""
    import sqlite3

    import isoline.store as store_module

    db = str(tmp_path / "sent.db")
    iso.minimize(lambda x: float(x[0]), iso.Box([0.0], [1.0]), method="random", budget=3,
                 storage=db, study="s")  # fmt: skip
    real_connect = sqlite3.connect

    def no_side_files(database, *args, **kwargs):  # as SQLite in a folder it cannot write
        if "mode=ro" in str(database) and "immutable=1" not in str(database):
            raise sqlite3.OperationalError("attempt to write a readonly database")
        return real_connect(database, *args, **kwargs)

    monkeypatch.setattr(store_module.sqlite3, "connect", no_side_files)
    assert iso.load(db, "s").n_evals == 3
    with store_module.Store(db, readonly=True) as store:
        assert [r.name for r in store.studies()] == ["s"]


def test_loading_a_file_that_is_no_store_does_not_speak_of_overwriting(tmp_path) -> None:
    path = tmp_path / "notes.db"
    path.write_text("not a database")
    with pytest.raises(StoreError, match=r"not a SQLite database \(no isoline store\)"):
        iso.load(str(path), "s")
    with pytest.raises(StoreError, match="refusing to overwrite it"):
        iso.minimize(sphere, iso.Box([0.0], [1.0]), "random", budget=2, storage=str(path))
