"""A store from elsewhere is not trusted: malformed content ends in StoreError or a clean
CLI error; two processes creating one new store or study do not collide."""

from __future__ import annotations

import collections
import importlib.util
import json
import multiprocessing as mp
import os
import sqlite3
import threading
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

import isoline as iso
from isoline.cli import main
from isoline.store import Store, StoreError

ROOT = Path(__file__).resolve().parents[1]
BOX = iso.Box([-1.0, -1.0], [1.0, 1.0])


def _load(name: str) -> ModuleType:
    path = ROOT / "benchmarks" / "reliability" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"reliability_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def sphere(x: np.ndarray) -> float:
    return float(np.sum(np.asarray(x) ** 2))


def _edit(db: str, sql: str, *params: object) -> None:
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA ignore_check_constraints = ON")
    conn.execute(sql, params)
    conn.close()


def test_random_malformed_values_in_every_column_end_in_store_errors(tmp_path) -> None:
    """Hypothesis writes malformed values into every column of a real store; resume,
    report, merge and delete end cleanly (the benchmark runs 10,000 such examples)."""
    fuzz = _load("store_fuzz")
    counts: collections.Counter[str] = collections.Counter()
    fuzz.run(12, counts, str(tmp_path), seed=0)
    assert counts["stores crafted"] > 0
    assert counts["resume: StoreError"] > 0  # malformed values were found and refused


@pytest.mark.parametrize(
    "column, value",
    [
        ("options", "[" * 100_000 + "]" * 100_000),
        ("options", '{"a": ' * 100 + "1" + "}" * 100),
        ("budget", "lots"),
        ("space", '{"params": 1}'),
    ],
)
def test_a_malformed_study_field_is_a_store_error_naming_it(tmp_path, column, value) -> None:
    db = str(tmp_path / "s.db")
    iso.minimize(sphere, BOX, "random", budget=3, seed=1, storage=db, study="s")
    _edit(db, f"UPDATE studies SET {column} = ?", value)
    with pytest.raises(StoreError, match=f"study 's', field '{column}'"):
        iso.minimize(sphere, BOX, "random", budget=4, seed=1, storage=db, study="s")


@pytest.mark.parametrize(
    "column, value",
    [("status", "evil"), ("x", "[0.5]"), ("info", "[" * 100 + "]" * 100), ("u", b"\xff\xfe")],
)
def test_a_malformed_trial_field_is_a_store_error_naming_it(tmp_path, column, value) -> None:
    db = str(tmp_path / "s.db")
    iso.minimize(sphere, BOX, "random", budget=3, seed=1, storage=db, study="s")
    _edit(db, f"UPDATE trials SET {column} = ? WHERE number = 1", value)
    with pytest.raises(StoreError, match=f"study 's', trial 1, field '{column}'"):
        iso.minimize(sphere, BOX, "random", budget=4, seed=1, storage=db, study="s")


def sphere_under_plane(x: np.ndarray) -> dict[str, float]:
    return {"f": sphere(x), "c": float(x[0]) - 0.5}


def _constrained(db: str, budget: int) -> iso.Result:
    return iso.optimize(sphere_under_plane, BOX, method="random", budget=budget, seed=1,
                        storage=db, study="s", objectives=["f"], constraints=["c"])  # fmt: skip


@pytest.mark.parametrize(
    "constrained, value, problem",
    [
        (True, "[0.1, 0.2, 0.3]", "must be a list of 2 numbers"),
        (True, "[0.1]", "must be a list of 2 numbers"),
        (True, None, "is missing"),
        (True, "[1e300, -1]", "of an evaluated trial must be finite and start with its y"),
        (False, "[0.1, 0.2]", "must be null: the study has one output"),
        (False, "[0.1]", "must be null: the study has one output"),
    ],
)
def test_a_row_of_outputs_that_does_not_fit_the_study_is_a_store_error(
    tmp_path, constrained, value, problem
) -> None:
    """A stored row of outputs of the wrong length, missing, or not led by the trial's
    value is refused (resume had replayed it as a failed evaluation, report had shown it)."""
    db = str(tmp_path / "s.db")
    _constrained(db, 3) if constrained else iso.minimize(sphere, BOX, "random", budget=3,
                                                         seed=1, storage=db, study="s")  # fmt: skip
    _edit(db, "UPDATE trials SET outputs = ? WHERE number = 1", value)
    with pytest.raises(StoreError, match=f"trial 1, field 'outputs': {problem}"):
        iso.load(db, "s")
    with pytest.raises(StoreError, match=f"trial 1, field 'outputs': {problem}"):
        _constrained(db, 4) if constrained else iso.minimize(sphere, BOX, "random", budget=4,
                                                             seed=1, storage=db, study="s")  # fmt: skip


@pytest.mark.parametrize(
    "record",
    [{"directions": ["up"]}, {"x": 1}, [1], {"direction": 3}, {"directions": [], "objectives": []},
     {"directions": ["minimize"], "objectives": ["f"], "constraints": ["c", "c"]}],
)  # fmt: skip
def test_an_unusable_stored_objective_record_is_a_store_error(tmp_path, record) -> None:
    db = str(tmp_path / "s.db")
    _constrained(db, 3)
    attrs = json.loads(sqlite3.connect(db).execute("SELECT attrs FROM studies").fetchone()[0])
    _edit(db, "UPDATE studies SET attrs = ?", json.dumps({**attrs, "objective": record}))
    with pytest.raises(StoreError, match="study 's', field 'attrs': holds an unusable objective"):
        iso.load(db, "s")
    with pytest.raises(StoreError, match="study 's', field 'attrs': holds an unusable objective"):
        _constrained(db, 4)


def test_a_huge_last_batch_number_is_a_store_error_not_a_huge_list(tmp_path) -> None:
    """A crafted ``state_batch`` far past the stored batches (found by the fuzz
    benchmark) is refused without listing every batch number up to it."""
    db = str(tmp_path / "s.db")
    iso.minimize(sphere, BOX, "random", budget=3, seed=1, storage=db, study="s")
    _edit(db, "UPDATE studies SET state_batch = ?", 2**40)
    with pytest.raises(StoreError, match="its record says the last one is 1099511627776"):
        iso.minimize(sphere, BOX, "random", budget=4, seed=1, storage=db, study="s")


@pytest.mark.parametrize("blob", [b"", b"s"])
def test_a_name_stored_as_a_blob_of_utf8_is_found_and_refused(tmp_path, blob, capsys) -> None:
    """A study name written as a BLOB of valid UTF-8 (found by the fuzz benchmark) is
    listed as its text; looking that text up finds the study, and its record is refused
    (merge exited with a raw AssertionError)."""
    db = str(tmp_path / "s.db")
    iso.minimize(sphere, BOX, "random", budget=3, seed=1, storage=db, study="s")
    _edit(db, "UPDATE studies SET name = ?", blob)
    with Store(db, create=False, readonly=True) as store:
        assert store.study_names() == [blob.decode()]
        with pytest.raises(StoreError, match="field 'name'"):
            store.get_study(blob.decode())
    assert main(["merge", str(tmp_path / "t.db"), db]) == 1
    assert "refused 1" in capsys.readouterr().out


def test_a_missing_table_is_a_store_error(tmp_path) -> None:
    db = str(tmp_path / "s.db")
    iso.minimize(sphere, BOX, "random", budget=2, storage=db, study="s")
    _edit(db, "DROP TABLE trials")
    with pytest.raises(StoreError, match="no 'trials' table"):
        Store(db)


def test_delete_removes_studies_whose_content_is_malformed(tmp_path, capsys) -> None:
    db = str(tmp_path / "s.db")
    for name in ("deep", "bad-name", "good"):
        iso.minimize(sphere, BOX, "random", budget=2, storage=db, study=name)
    _edit(db, "UPDATE studies SET options = ? WHERE name = 'deep'", "[" * 50_000 + "]" * 50_000)
    _edit(db, "UPDATE studies SET name = CAST(? AS TEXT) WHERE name = 'bad-name'", b"bad\xff")
    assert main(["delete", db, "deep", os.fsdecode(b"bad\xff")]) == 0
    assert "bad\\xff" in capsys.readouterr().out
    with Store(db, readonly=True) as store:
        assert store.study_names() == ["good"]


def test_merge_copies_sound_studies_and_refuses_malformed_ones_whole(tmp_path, capsys) -> None:
    src, dst = str(tmp_path / "a.db"), str(tmp_path / "b.db")
    for name in ("one", "two", "three"):
        iso.minimize(sphere, BOX, "random", budget=3, storage=src, study=name)
    _edit(src, "UPDATE trials SET info = ? WHERE number = 2 AND study_id = 2", "x" * 17_000_000)
    _edit(src, "UPDATE trials SET y = ? WHERE number = 0 AND study_id = 3", b"\x80pickle")
    assert main(["merge", dst, src]) == 1
    out, err = capsys.readouterr()
    assert "copied one" in out and "refused two" in out and "refused three" in out
    assert "field 'info'" in out and "field 'y'" in out
    assert err.startswith("isoline merge: error: 2 studies refused")
    with Store(dst, readonly=True) as store:
        assert store.study_names() == ["one"]
        assert store.conn.execute("SELECT COUNT(*) FROM trials").fetchone()[0] == 3


def test_a_stored_auto_choice_with_an_unbounded_size_is_refused(tmp_path) -> None:
    db = str(tmp_path / "s.db")
    iso.minimize(sphere, BOX, "auto", budget=4, storage=db, study="a")
    conn = sqlite3.connect(db, isolation_level=None)
    (attrs,) = conn.execute("SELECT attrs FROM studies").fetchone()
    attrs = json.loads(attrs)
    attrs["auto"]["method"] = "cma-es"
    conn.execute(
        "UPDATE studies SET method = 'cma-es', options = ?, attrs = ?",
        (json.dumps({"popsize": 5000, "n_init": None, "init": None}), json.dumps(attrs)),
    )
    conn.close()
    with pytest.raises(StoreError, match="auto choice is refused: option popsize=5000 exceeds"):
        iso.minimize(sphere, BOX, "auto", budget=6, storage=db, study="a")


def test_creating_a_new_store_waits_out_a_writer_that_holds_the_empty_file(tmp_path) -> None:
    """SQLite answers "database is locked" at once, without the busy handler, when the
    WAL switch meets another connection's write lock on the still-empty file."""
    db = str(tmp_path / "new.db")
    holder = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    threading.Timer(0.3, lambda: holder.execute("ROLLBACK")).start()
    with Store(db, timeout=30) as store:
        assert store.study_names() == []
    holder.close()


#: races per test (each by two processes, in lock step)
RACES = 4


@pytest.mark.parametrize("mode", ["store", "study"])
def test_two_processes_creating_one_new_store_or_study_do_not_collide(tmp_path, mode) -> None:
    race = _load("store_race")
    folder = str(tmp_path)
    if mode == "study":
        Store(os.path.join(folder, "shared.db")).close()
    ctx = mp.get_context("fork")
    barrier, queue = ctx.Barrier(2), ctx.Queue()
    procs = [
        ctx.Process(target=race._worker, args=(mode, folder, RACES, barrier, queue))
        for _ in range(2)
    ]
    for p in procs:
        p.start()
    counts: collections.Counter[str] = collections.Counter()
    for _ in procs:
        counts.update(queue.get(timeout=300))
    for p in procs:
        p.join()
    allowed = {"ok", "StoreError: being run"}
    assert set(counts) <= allowed, counts
    assert counts["ok"] >= RACES  # each race has a winner (or both run, one after the other)
    for log in tmp_path.glob("log*.jsonl"):
        lines = log.read_text().splitlines()
        assert len(lines) == len(set(lines)) == 2  # every point evaluated once
