"""SQLite run store: every evaluation is committed as it arrives.

One file holds any number of *studies* (named runs). A study records its method, seed,
options and space; each *trial* records x (user units and unit cube), y, status
(``pending`` / ``ok`` / ``failed``), the error text, per-evaluation info, timestamps and how
many times its evaluation was started.

The store holds data only: no method state is serialized. A study resumes by *replaying*
its stored history through a fresh optimizer of the same seed (see
:mod:`isoline.runs`), so opening a file received from someone else cannot run code,
and the resumed trajectory is the uninterrupted one in any process. The replay protocol is
recorded per study (:data:`RESUME_FORMATS`); a study written with an unknown one is refused.

A study is run by one owner at a time: :meth:`Store.acquire` takes its *lease*
(:mod:`isoline.leases`). The tables and version numbers are in :mod:`isoline.store_schema`.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from isoline.leases import LEASE_GRACE, UNLOCK_WATCH, Lease, LeaseBook, LeaseError
from isoline.store_schema import (
    FORMAT,
    LEASES_TABLE,
    RESUME_FORMATS,
    TABLES,
    VERSION,
    statements,
)

__all__ = ["Lease", "Store", "StoreError", "StudyRecord", "Trial", "RESUME_FORMATS"]


class StoreError(RuntimeError):
    """The file is not a usable isoline store, or a study cannot be run as asked."""


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
    resume_format: str = RESUME_FORMATS[0]


@dataclass(frozen=True)
class Trial:
    number: int
    batch: int
    x: Any
    u: np.ndarray
    y: float | None
    status: str
    error: str | None
    info: dict[str, Any] | None
    started: float | None
    finished: float | None
    attempts: int = 0

    @property
    def duration(self) -> float | None:
        if self.started is None or self.finished is None:
            return None
        return self.finished - self.started


class Store:
    """An isoline SQLite file (``":memory:"`` for a throw-away store).

    Args:
        path: the file; created (atomically: schema and format record in one transaction)
            unless ``create=False``.
        timeout: seconds to wait for another connection's write lock.
        create: create the file if it does not exist.
        readonly: open for reading only (nothing is created or migrated).
        lease_grace: seconds without a heartbeat after which a lease held on another host
            may be taken over.

    Raises:
        TypeError: ``path`` is not a string or path.
        StoreError: the path is a directory, its directory does not exist, it does not
            exist and ``create`` is false, or it is not an isoline store (a foreign file
            is never overwritten).
    """

    def __init__(
        self,
        path: str | os.PathLike[str] = "isoline.db",
        timeout: float = 60.0,
        *,
        create: bool = True,
        readonly: bool = False,
        lease_grace: float = LEASE_GRACE,
    ) -> None:
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"storage must be a file path or a Store, got {type(path).__name__}")
        self.path = os.fspath(path)
        self.timeout = float(timeout)
        self.lease_grace = float(lease_grace)
        self.readonly = bool(readonly)
        memory = self.path == ":memory:"
        if not memory:
            _check_path(self.path, create and not readonly)
        uri = f"file:{self.path}?mode=ro" if readonly and not memory else self.path
        try:
            self.conn = sqlite3.connect(
                uri, timeout=timeout, isolation_level=None, uri=readonly and not memory,
                check_same_thread=False,
            )  # fmt: skip
            self.conn.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
            tables = _tables(self.conn)
        except sqlite3.DatabaseError as e:
            raise StoreError(f"{self.path} is not a SQLite database: {e}") from None
        #: the ownership leases of this store's studies
        self.leases = LeaseBook(self.conn, self.path, self.timeout, self.lease_grace, self._tx)
        try:
            self._open(tables, memory)
        except BaseException:
            self.conn.close()
            raise

    def _open(self, tables: set[str], memory: bool) -> None:
        self.version = VERSION
        if not tables:
            if self.readonly:
                raise StoreError(f"{self.path} is an empty file, not an isoline store")
            self._create(memory)
            return
        if "meta" not in tables:
            raise StoreError(
                f"{self.path} is a SQLite database that isoline did not create "
                f"(tables {sorted(tables)}); refusing to write to it"
            )
        fmt = dict(self.conn.execute("SELECT key, value FROM meta").fetchall())
        if not fmt and tables <= {"meta", "studies", "trials", "leases"} and not self.readonly:
            # an interrupted creation by an isoline older than atomic creation
            self._drop_and_create(tables)
            return
        if fmt.get("format") != FORMAT:
            raise StoreError(f"{self.path} is not an isoline store (meta {fmt})")
        version = int(fmt.get("version", -1))
        if version > VERSION:
            raise StoreError(
                f"{self.path} has store version {version}; this isoline reads <= {VERSION}: "
                "upgrade isoline to open it"
            )
        if version < VERSION and not self.readonly:
            self._migrate(version)
            version = VERSION
        self.version = version

    def _create(self, memory: bool) -> None:
        if not memory:
            self.conn.execute("PRAGMA journal_mode = WAL")
        with self._tx():
            if _tables(self.conn):  # another process created it meanwhile
                return
            for statement in statements(TABLES):
                self.conn.execute(statement)
            self.conn.execute(
                "INSERT INTO meta VALUES ('format', ?), ('version', ?)", (FORMAT, str(VERSION))
            )

    def _drop_and_create(self, tables: set[str]) -> None:
        with self._tx():
            for t in tables:
                (n,) = self.conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()
                if n:
                    raise StoreError(
                        f"{self.path} has isoline tables but no format record; refusing to touch it"
                    )
            for t in tables:
                self.conn.execute(f"DROP TABLE {t}")
        self._create(False)

    def _migrate(self, version: int) -> None:
        """Version 1 -> 2: drop the pickled method states (never read), add the attempts
        column, the resume format and the leases table."""
        if version != 1:
            raise StoreError(f"{self.path} has unknown store version {version}")
        with self._tx():
            (now,) = self.conn.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
            if int(now) >= VERSION:  # migrated by another process meanwhile
                return
            self.conn.execute("ALTER TABLE studies DROP COLUMN state")
            self.conn.execute(
                "ALTER TABLE studies ADD COLUMN resume_format TEXT NOT NULL DEFAULT 'replay-1'"
            )
            self.conn.execute("ALTER TABLE trials ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0")
            self.conn.execute(
                "UPDATE trials SET attempts = 1 WHERE status != 'pending' OR started IS NOT NULL"
            )
            self.conn.execute(LEASES_TABLE)
            self.conn.execute("UPDATE meta SET value = ? WHERE key = 'version'", (str(VERSION),))

    def _v2(self, column: str, v1_value: str) -> str:
        """``column``, or the value a version-1 file (read without migration) implies."""
        return column if self.version >= 2 else v1_value

    # -- transactions ------------------------------------------------------------------
    def _tx(self) -> _Transaction:
        if self.readonly:
            raise StoreError(f"{self.path} is open read-only")
        return _Transaction(self.conn)

    def close(self) -> None:
        self.leases.release_all()
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
                " attrs, created, resume_format) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
                    RESUME_FORMATS[0],
                ),
            )
        study = self.get_study(name)
        assert study is not None
        return study

    def get_study(self, name: str) -> StudyRecord | None:
        row = self.conn.execute(
            "SELECT study_id, name, method, seed, batch_size, options, space, budget, attrs,"
            f" created, state_batch, finished, {self._v2('resume_format', repr(RESUME_FORMATS[0]))}"
            " FROM studies WHERE name = ?",
            (name,),
        ).fetchone()
        if row is None:
            return None
        return StudyRecord(
            row[0], row[1], row[2], row[3], row[4], json.loads(row[5]), json.loads(row[6]),
            row[7], json.loads(row[8]), row[9], row[10], bool(row[11]), row[12],
        )  # fmt: skip

    def studies(self, prefix: str = "") -> list[StudyRecord]:
        names = self.conn.execute(
            "SELECT name FROM studies WHERE substr(name, 1, ?) = ? ORDER BY study_id",
            (len(prefix), prefix),
        ).fetchall()
        return [s for (n,) in names if (s := self.get_study(n)) is not None]

    def set_budget(self, study: StudyRecord, budget: int) -> None:
        with self._tx():
            self._check_owner(study)
            self.conn.execute(
                "UPDATE studies SET budget = ?, finished = 0 WHERE study_id = ?",
                (budget, study.study_id),
            )

    def record_resume(self, study: StudyRecord, when: float) -> None:
        """Append ``when`` (epoch seconds) to the study's ``attrs["resumed"]``: the moment a
        reopened study had replayed its history and went on. Reports measure the time to
        its next batch from there, not across the interruption and the replay."""
        self._append_attr(study, "resumed", float(when))

    def record_crash(self, study: StudyRecord, error: str, when: float) -> None:
        """Append ``{"when": when, "error": error}`` to the study's ``attrs["crashes"]``:
        the run stopped on an exception (the method's or a peer's, or too many failed
        first evaluations), so reports can say why it is incomplete."""
        self._append_attr(study, "crashes", {"when": float(when), "error": str(error)})

    def _append_attr(self, study: StudyRecord, key: str, value: Any) -> None:
        with self._tx():
            self._check_owner(study)
            (raw,) = self.conn.execute(
                "SELECT attrs FROM studies WHERE study_id = ?", (study.study_id,)
            ).fetchone()
            attrs = json.loads(raw)
            attrs[key] = [*attrs.get(key, []), value]
            self.conn.execute(
                "UPDATE studies SET attrs = ? WHERE study_id = ?", (_dumps(attrs), study.study_id)
            )

    def mark_finished(self, study: StudyRecord) -> None:
        with self._tx():
            self._check_owner(study)
            self.conn.execute(
                "UPDATE studies SET finished = 1 WHERE study_id = ?", (study.study_id,)
            )

    def copy_studies(
        self, source: Store, names: Iterable[str] | None = None, *, unfinished: bool = False
    ) -> tuple[list[str], list[str]]:
        """Copy studies, with every trial as stored, from ``source`` into this store.

        Merges the stores of runs made elsewhere (another machine, a kept snapshot) into
        one: a copied study reports and resumes here as it would have there. Each study is
        copied in one transaction; its leases are not copied.

        Args:
            source: the store to read (it is not written).
            names: the studies to copy; default every finished study of ``source``
                (and every unfinished one with ``unfinished``).
            unfinished: also copy studies that have not reached their budget; they resume
                here by replay like any stored study.

        Returns:
            ``(copied, skipped)``: the names copied, and the names this store already
            holds (left as they are here).

        Raises:
            StoreError: a named study is not in ``source``, or is unfinished and
                ``unfinished`` is False.
        """
        if source.path != ":memory:" and os.path.abspath(source.path) == os.path.abspath(self.path):
            raise StoreError(f"cannot copy studies from {self.path} into itself")
        if names is None:
            wanted = [s for s in source.studies() if s.finished or unfinished]
        else:
            wanted = []
            for name in names:
                study = source.get_study(name)
                if study is None:
                    raise StoreError(f"no study {name!r} in {source.path}")
                if not (study.finished or unfinished):
                    raise StoreError(
                        f"study {name!r} in {source.path} is unfinished; pass unfinished=True "
                        "to copy it anyway"
                    )
                wanted.append(study)
        copied, skipped = [], []
        for study in wanted:
            with self._tx():
                if self.conn.execute(
                    "SELECT 1 FROM studies WHERE name = ?", (study.name,)
                ).fetchone():
                    skipped.append(study.name)
                    continue
                self._copy_study(source, study)
            copied.append(study.name)
        return copied, skipped

    def delete_studies(self, names: Iterable[str]) -> list[str]:
        """Delete studies, with their trials and leases, in one transaction.

        For a run to be made again from scratch (a changed method, a corrected problem):
        the next run under the same name starts a new study instead of resuming.

        Args:
            names: the studies to delete.

        Returns:
            The names deleted, in the order given.

        Raises:
            StoreError: a name is not in this store, or a live process holds its lease
                (a run in progress); nothing is deleted then.
        """
        names = list(dict.fromkeys(names))
        with self._tx():
            ids = []
            for name in names:
                row = self.conn.execute(
                    "SELECT study_id FROM studies WHERE name = ?", (name,)
                ).fetchone()
                if row is None:
                    raise StoreError(f"no study {name!r} in {self.path}")
                holder = self.leases.inspect(row[0])
                if holder is not None and not holder.stale(self.lease_grace):
                    what, advice = self.leases.explain(holder, name)
                    raise StoreError(f"{what}; stop that run before deleting the study. {advice}")
                ids.append((row[0],))
            for table in ("trials", "leases", "studies"):
                self.conn.executemany(f"DELETE FROM {table} WHERE study_id = ?", ids)
        return names

    def _copy_study(self, source: Store, study: StudyRecord) -> None:
        """Inside a write transaction: insert ``study`` of ``source`` and its trials."""
        row = source.conn.execute(
            "SELECT name, method, seed, batch_size, options, space, budget, attrs, created,"
            f" state_batch, finished, {source._v2('resume_format', repr(RESUME_FORMATS[0]))}"
            " FROM studies WHERE study_id = ?",
            (study.study_id,),
        ).fetchone()
        cursor = self.conn.execute(
            "INSERT INTO studies (name, method, seed, batch_size, options, space, budget,"
            " attrs, created, state_batch, finished, resume_format)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            row,
        )
        trials = source.conn.execute(
            "SELECT number, batch, x, u, y, status, error, info, started, finished,"
            f" {source._v2('attempts', '0')} FROM trials WHERE study_id = ? ORDER BY number",
            (study.study_id,),
        ).fetchall()
        self.conn.executemany(
            "INSERT INTO trials (study_id, number, batch, x, u, y, status, error, info,"
            " started, finished, attempts) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(cursor.lastrowid, *t) for t in trials],
        )

    # -- ownership ---------------------------------------------------------------------
    def acquire(self, study: StudyRecord) -> Lease:
        """Take the study's lease for this process (:mod:`isoline.leases`).

        Raises:
            StoreError: another owner (process, or another run in this process) holds a
                lease that is not stale; the message names its host, pid and heartbeat age.
        """
        try:
            return self.leases.acquire(study.study_id, study.name)
        except LeaseError as err:
            raise StoreError(str(err)) from err

    def unlock(self, name: str, force: bool = False, watch: float = UNLOCK_WATCH) -> str:
        """Remove the lease of study ``name`` (:meth:`isoline.leases.LeaseBook.unlock`);
        returns whose it was, ``""`` if it had none.

        Raises:
            StoreError: no such study, or its holder is alive and heartbeating (and not
                ``force``).
        """
        study = self.get_study(name)
        if study is None:
            raise StoreError(f"no study {name!r} in {self.path}")
        try:
            return self.leases.unlock(study.study_id, study.name, force=force, watch=watch)
        except LeaseError as err:
            raise StoreError(str(err)) from err

    def _check_owner(self, study: StudyRecord) -> None:
        """Inside a write transaction: refuse if another owner holds the study's lease."""
        try:
            self.leases.check_owner(study.study_id, study.name)
        except LeaseError as err:
            raise StoreError(str(err)) from err

    # -- trials ------------------------------------------------------------------------
    def add_batch(self, study: StudyRecord, batch: int, X: Any, U: np.ndarray) -> list[int]:
        """Store a new batch as pending trials, atomically.

        Args:
            X: the ``q`` points in user units (JSON-serializable rows).
            U: ``(q, d)`` the same points in the unit cube, as the method proposed them.

        Raises:
            StoreError: the study's last stored batch is not ``batch - 1`` (another
                optimizer wrote it), or another owner holds the study's lease.
        """
        with self._tx():
            self._check_owner(study)
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
            numbers = list(range(start, start + len(U)))
            self.conn.executemany(
                "INSERT INTO trials (study_id, number, batch, x, u, status) "
                "VALUES (?, ?, ?, ?, ?, 'pending')",
                [
                    (study.study_id, n, batch, _dumps(x), _dumps(np.asarray(u).tolist()))
                    for n, x, u in zip(numbers, X, U)
                ],
            )
            self.conn.execute(
                "UPDATE studies SET state_batch = ? WHERE study_id = ?", (batch, study.study_id)
            )
        return numbers

    def mark_started(self, study: StudyRecord, numbers: list[int]) -> None:
        """Record that the evaluations of trials ``numbers`` start now (one more attempt)."""
        with self._tx():
            self._check_owner(study)
            self.conn.executemany(
                "UPDATE trials SET attempts = attempts + 1, started = ? "
                "WHERE study_id = ? AND number = ? AND status = 'pending'",
                [(time.time(), study.study_id, n) for n in numbers],
            )

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
            self._check_owner(study)
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
            self.leases.renew(study.study_id)

    def trials(self, study: StudyRecord) -> list[Trial]:
        rows = self.conn.execute(
            "SELECT number, batch, x, u, y, status, error, info, started, finished,"
            f" {self._v2('attempts', '0')} FROM trials WHERE study_id = ? ORDER BY number",
            (study.study_id,),
        ).fetchall()
        return [
            Trial(
                r[0],
                r[1],
                _loads_x(r[2]),
                np.array(json.loads(r[3]), dtype=float),
                r[4],
                r[5],
                r[6],
                None if r[7] is None else json.loads(r[7]),
                r[8],
                r[9],
                r[10],
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


def _tables(conn: sqlite3.Connection) -> set[str]:
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def _check_path(path: str, create: bool) -> None:
    if os.path.isdir(path):
        raise StoreError(
            f"storage {path!r} is a directory; give a file path such as {path}/runs.db"
        )
    if os.path.exists(path):
        with open(path, "rb") as fh:
            head = fh.read(16)
        if head and head != b"SQLite format 3\x00":
            raise StoreError(
                f"{path} exists and is not a SQLite database; refusing to overwrite it"
            )
        return
    if not create:
        raise StoreError(f"no store at {path!r} (no such file)")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise StoreError(f"cannot create store {path!r}: directory {folder!r} does not exist")


def _dumps(obj: Any) -> str:
    return json.dumps(obj, default=_json_default, allow_nan=True)


def _loads_x(text: str) -> Any:
    x = json.loads(text)
    return np.array(x, dtype=float) if isinstance(x, list) else x


def _json_default(o: Any) -> Any:
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, np.generic):
        return o.item()
    return repr(o)
