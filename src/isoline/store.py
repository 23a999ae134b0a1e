"""SQLite run store: every evaluation is committed as it arrives.

One file holds any number of *studies* (named runs). A study records its method, seed,
options and space; each *trial* records x (user units and unit cube), y, status
(``pending`` / ``ok`` / ``failed``), the error text, per-evaluation info and timestamps.
After each ``ask`` the pickled method state is saved in the same transaction as the new
pending trials, so a study resumes exactly where it stopped: finished trials are told,
pending ones are evaluated again, and the trajectory is the one an uninterrupted run takes.
"""

from __future__ import annotations

import json
import os
import pickle
import sqlite3
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Store", "StoreError", "Trial", "StudyRecord"]

FORMAT = "isoline-store"
VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS studies (
    study_id INTEGER PRIMARY KEY,
    name TEXT UNIQUE NOT NULL,
    method TEXT NOT NULL,
    seed INTEGER NOT NULL,
    batch_size INTEGER NOT NULL,
    options TEXT NOT NULL,
    space TEXT NOT NULL,
    budget INTEGER,
    attrs TEXT NOT NULL DEFAULT '{}',
    created REAL NOT NULL,
    state BLOB,
    state_batch INTEGER NOT NULL DEFAULT -1,
    finished INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS trials (
    trial_id INTEGER PRIMARY KEY,
    study_id INTEGER NOT NULL REFERENCES studies(study_id),
    number INTEGER NOT NULL,
    batch INTEGER NOT NULL,
    x TEXT NOT NULL,
    u TEXT NOT NULL,
    y REAL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'ok', 'failed')),
    error TEXT,
    info TEXT,
    started REAL,
    finished REAL,
    UNIQUE (study_id, number)
);
CREATE INDEX IF NOT EXISTS trials_by_study ON trials (study_id, number);
"""


class StoreError(RuntimeError):
    """The file is not an isoline store, or a study does not match its record."""


@dataclass(frozen=True)
class StudyRecord:
    study_id: int
    name: str
    method: str
    seed: int
    batch_size: int
    options: dict[str, Any]
    space: dict[str, Any]
    budget: int | None
    attrs: dict[str, Any]
    created: float
    state_batch: int
    finished: bool


@dataclass(frozen=True)
class Trial:
    number: int
    batch: int
    x: np.ndarray
    u: np.ndarray
    y: float | None
    status: str
    error: str | None
    info: dict[str, Any] | None
    started: float | None
    finished: float | None

    @property
    def duration(self) -> float | None:
        if self.started is None or self.finished is None:
            return None
        return self.finished - self.started


class Store:
    """An isoline SQLite file (``":memory:"`` for a throw-away store).

    Raises:
        StoreError: if ``path`` exists but is not a SQLite file, or is a SQLite file that
            isoline did not create (it is never overwritten).
    """

    def __init__(self, path: str | os.PathLike = "isoline.db", timeout: float = 60.0) -> None:
        self.path = str(path)
        if self.path != ":memory:" and os.path.exists(self.path):
            _check_header(self.path)
        try:
            self.conn = sqlite3.connect(self.path, timeout=timeout, isolation_level=None)
            self.conn.execute("PRAGMA busy_timeout = %d" % int(timeout * 1000))
            tables = {
                r[0] for r in self.conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
            }
        except sqlite3.DatabaseError as e:
            raise StoreError(f"{self.path} is not a SQLite database: {e}") from None
        if tables and "meta" not in tables:
            self.conn.close()
            raise StoreError(
                f"{self.path} is a SQLite database that isoline did not create "
                f"(tables {sorted(tables)}); refusing to write to it"
            )
        if tables:
            fmt = dict(self.conn.execute("SELECT key, value FROM meta").fetchall())
            if fmt.get("format") != FORMAT:
                self.conn.close()
                raise StoreError(f"{self.path} is not an isoline store (meta {fmt})")
            if int(fmt.get("version", -1)) > VERSION:
                self.conn.close()
                raise StoreError(
                    f"{self.path} has store version {fmt['version']}; this isoline reads <= {VERSION}"
                )
        else:
            if self.path != ":memory:":
                self.conn.execute("PRAGMA journal_mode = WAL")
            self.conn.executescript(_SCHEMA)
            with self._tx():
                self.conn.execute(
                    "INSERT OR IGNORE INTO meta VALUES ('format', ?), ('version', ?)",
                    (FORMAT, str(VERSION)),
                )

    # -- transactions ------------------------------------------------------------------
    def _tx(self) -> _Transaction:
        return _Transaction(self.conn)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- studies -----------------------------------------------------------------------
    def create_study(
        self,
        name: str,
        method: str,
        seed: int,
        batch_size: int,
        options: dict[str, Any],
        space: dict[str, Any],
        budget: int | None,
        attrs: dict[str, Any] | None = None,
    ) -> StudyRecord:
        with self._tx():
            self.conn.execute(
                "INSERT INTO studies (name, method, seed, batch_size, options, space, budget,"
                " attrs, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    name,
                    method,
                    seed,
                    batch_size,
                    _dumps(options),
                    _dumps(space),
                    budget,
                    _dumps(attrs or {}),
                    time.time(),
                ),
            )
        study = self.get_study(name)
        assert study is not None
        return study

    def get_study(self, name: str) -> StudyRecord | None:
        row = self.conn.execute(
            "SELECT study_id, name, method, seed, batch_size, options, space, budget, attrs,"
            " created, state_batch, finished FROM studies WHERE name = ?",
            (name,),
        ).fetchone()
        if row is None:
            return None
        return StudyRecord(
            row[0], row[1], row[2], row[3], row[4], json.loads(row[5]), json.loads(row[6]),
            row[7], json.loads(row[8]), row[9], row[10], bool(row[11]),
        )  # fmt: skip

    def studies(self, prefix: str = "") -> list[StudyRecord]:
        names = self.conn.execute(
            "SELECT name FROM studies WHERE substr(name, 1, ?) = ? ORDER BY study_id",
            (len(prefix), prefix),
        ).fetchall()
        return [s for (n,) in names if (s := self.get_study(n)) is not None]

    def set_budget(self, study: StudyRecord, budget: int) -> None:
        with self._tx():
            self.conn.execute(
                "UPDATE studies SET budget = ?, finished = 0 WHERE study_id = ?",
                (budget, study.study_id),
            )

    def mark_finished(self, study: StudyRecord) -> None:
        with self._tx():
            self.conn.execute(
                "UPDATE studies SET finished = 1 WHERE study_id = ?", (study.study_id,)
            )

    def load_state(self, study: StudyRecord) -> tuple[Any, int] | None:
        """The pickled optimizer state saved with the last batch, and that batch index."""
        row = self.conn.execute(
            "SELECT state, state_batch FROM studies WHERE study_id = ?", (study.study_id,)
        ).fetchone()
        if row is None or row[0] is None:
            return None
        return pickle.loads(row[0]), int(row[1])

    # -- trials ------------------------------------------------------------------------
    def add_batch(
        self, study: StudyRecord, batch: int, X: np.ndarray, U: np.ndarray, state: Any
    ) -> list[int]:
        """Store a new batch as pending trials with the state after its ``ask``, atomically.

        Raises:
            StoreError: if the study's stored state is not the one before ``batch``: another
                process (or optimizer) is running the same study and wrote that batch first.
        """
        blob = pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)
        with self._tx():
            (last,) = self.conn.execute(
                "SELECT state_batch FROM studies WHERE study_id = ?", (study.study_id,)
            ).fetchone()
            if last != batch - 1:
                raise StoreError(
                    f"study {study.name!r}: batch {batch} follows stored batch {last}; another "
                    "process is running this study (one study can be run by one process at a time)"
                )
            start = self.conn.execute(
                "SELECT COALESCE(MAX(number), -1) + 1 FROM trials WHERE study_id = ?",
                (study.study_id,),
            ).fetchone()[0]
            numbers = list(range(start, start + len(X)))
            self.conn.executemany(
                "INSERT INTO trials (study_id, number, batch, x, u, status) "
                "VALUES (?, ?, ?, ?, ?, 'pending')",
                [
                    (study.study_id, n, batch, _dumps(x.tolist()), _dumps(u.tolist()))
                    for n, x, u in zip(numbers, X, U)
                ],
            )
            self.conn.execute(
                "UPDATE studies SET state = ?, state_batch = ? WHERE study_id = ?",
                (blob, batch, study.study_id),
            )
        return numbers

    def record_result(
        self,
        study: StudyRecord,
        number: int,
        y: float | None,
        status: str,
        error: str | None,
        info: dict[str, Any] | None,
        started: float,
        finished: float,
    ) -> None:
        """Commit one evaluation's outcome."""
        with self._tx():
            self.conn.execute(
                "UPDATE trials SET y = ?, status = ?, error = ?, info = ?, started = ?,"
                " finished = ? WHERE study_id = ? AND number = ?",
                (
                    y,
                    status,
                    error,
                    None if info is None else _dumps(info),
                    started,
                    finished,
                    study.study_id,
                    number,
                ),
            )

    def trials(self, study: StudyRecord) -> list[Trial]:
        rows = self.conn.execute(
            "SELECT number, batch, x, u, y, status, error, info, started, finished FROM trials"
            " WHERE study_id = ? ORDER BY number",
            (study.study_id,),
        ).fetchall()
        return [
            Trial(
                r[0], r[1], np.array(json.loads(r[2]), dtype=float),
                np.array(json.loads(r[3]), dtype=float), r[4], r[5], r[6],
                None if r[7] is None else json.loads(r[7]), r[8], r[9],
            )  # fmt: skip
            for r in rows
        ]


class _Transaction:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> None:
        self.conn.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, *rest: object) -> None:
        self.conn.execute("ROLLBACK" if exc_type else "COMMIT")


def _check_header(path: str) -> None:
    with open(path, "rb") as fh:
        head = fh.read(16)
    if head and head != b"SQLite format 3\x00":
        raise StoreError(f"{path} exists and is not a SQLite database; refusing to overwrite it")


def _dumps(obj: Any) -> str:
    return json.dumps(obj, default=_json_default, allow_nan=True)


def _json_default(o: Any) -> Any:
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, np.generic):
        return o.item()
    return repr(o)
