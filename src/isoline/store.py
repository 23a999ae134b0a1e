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
(:mod:`isoline.leases`). The tables and version numbers are in :mod:`isoline.store_schema`;
creating, migrating and locking the file in :mod:`isoline.store_file`; reading, with every
row checked against the schema, in :mod:`isoline.store_read` and
:mod:`isoline.store_records`.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

import numpy as np

from isoline.leases import LEASE_GRACE, UNLOCK_WATCH, Lease, LeaseBook, LeaseError
from isoline.store_file import Transaction, check_columns, check_path, open_file, retry_busy, tables
from isoline.store_read import STUDY_COLUMNS, TRIAL_COLUMNS, StoreReader
from isoline.store_records import StoreError, StudyRecord, Trial, decode_text, dumps, outputs_json
from isoline.store_schema import RESUME_FORMATS

__all__ = [
    "Copied",
    "Lease",
    "Store",
    "StoreError",
    "StudyExists",
    "StudyRecord",
    "Trial",
    "RESUME_FORMATS",
]


class StudyExists(StoreError):
    """:meth:`Store.create_study` found a study of that name."""


class Copied(NamedTuple):
    """What :meth:`Store.copy_studies` did, study by study."""

    copied: list[str]
    #: studies the target already holds, left as they are there
    skipped: list[str]
    #: ``(name, reason)`` of each study not copied because it is malformed
    refused: list[tuple[str, str]]


class Store(StoreReader):
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
            check_path(self.path, create and not readonly)
        try:
            self.conn, found = self._connect(readonly and not memory, immutable=False)
        except sqlite3.OperationalError as e:
            if not (readonly and not memory):
                raise StoreError(f"{self.path} cannot be opened: {e}") from None
            try:  # a folder this process cannot write: no -wal/-shm files can be made there
                self.conn, found = self._connect(True, immutable=True)
            except sqlite3.DatabaseError as e2:
                raise StoreError(f"{self.path} cannot be read: {e2}") from None
        except sqlite3.DatabaseError as e:
            raise StoreError(f"{self.path} is not a SQLite database: {e}") from None
        #: the ownership leases of this store's studies
        self.leases = LeaseBook(self.conn, self.path, self.timeout, self.lease_grace, self._tx)
        try:
            self.version = open_file(self.conn, self.path, found, memory, self.readonly, timeout)
            #: the columns of the studies and trials tables in this file
            self._present = check_columns(self.conn, self.path, self.version)
            self._columns = {"studies": list(STUDY_COLUMNS), "trials": list(TRIAL_COLUMNS)}
        except sqlite3.DatabaseError as e:
            self.conn.close()
            raise StoreError(f"{self.path} cannot be opened as an isoline store: {e}") from None
        except BaseException:
            self.conn.close()
            raise

    def _connect(self, readonly: bool, immutable: bool) -> tuple[sqlite3.Connection, Any]:
        """A connection and the tables found; read-only through a URI, ``immutable`` for a
        file in a folder this process cannot write (SQLite then takes no locks)."""
        uri = f"file:{self.path}?mode=ro{'&immutable=1' * immutable}" if readonly else self.path
        conn = sqlite3.connect(uri, timeout=self.timeout, isolation_level=None, uri=readonly,
                               check_same_thread=False)  # fmt: skip
        try:
            conn.text_factory = decode_text
            conn.execute(f"PRAGMA busy_timeout = {int(self.timeout * 1000)}")
            return conn, retry_busy(lambda: tables(conn), self.timeout)
        except BaseException:
            conn.close()
            raise

    # -- transactions ------------------------------------------------------------------
    def _tx(self) -> Transaction:
        if self.readonly:
            raise StoreError(f"{self.path} is open read-only")
        return Transaction(self.conn)

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
        """Create a study and return its record.

        Raises:
            StudyExists: a study of that name exists (another process may have created
                it since this one looked); nothing is written then.
        """
        with self._tx():
            if self.study_id(name) is not None:
                raise StudyExists(f"study {name!r} already exists in {self.path}")
            self.conn.execute(
                "INSERT INTO studies (name, method, seed, batch_size, options, space, budget,"
                " attrs, created, resume_format) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (name, method, seed, batch_size, dumps(options), dumps(space), budget,
                 dumps(attrs or {}), time.time(), RESUME_FORMATS[0]),
            )  # fmt: skip
        study = self.get_study(name)
        assert study is not None
        return study

    def set_budget(self, study: StudyRecord, budget: int) -> None:
        with self._tx():
            self._check_owner(study)
            self.conn.execute(
                "UPDATE studies SET budget = ?, finished = 0 WHERE study_id = ?",
                (budget, study.study_id),
            )

    def record_resume(self, study: StudyRecord, when: float) -> None:
        """Append ``when`` (epoch seconds) to ``attrs["resumed"]``: the moment a reopened
        study had replayed its history and went on (reports time its next batch from there)."""
        self.update_attr(study, "resumed", lambda old: [*(old or []), float(when)])

    def record_crash(self, study: StudyRecord, error: str, when: float) -> None:
        """Append ``{"when": when, "error": error}`` to ``attrs["crashes"]``: the run stopped
        on an exception (the method's, a peer's, too many failed first evaluations)."""
        crash = {"when": float(when), "error": str(error)}
        self.update_attr(study, "crashes", lambda old: [*(old or []), crash])

    def update_attr(self, study: StudyRecord, key: str, update: Callable[[Any], Any]) -> None:
        """Set ``attrs[key]`` of ``study`` to ``update(old)`` (``old`` is ``None`` if unset)."""
        with self._tx():
            self._check_owner(study)
            attrs = self._study(study.study_id).attrs
            attrs[key] = update(attrs.get(key))
            self.conn.execute(
                "UPDATE studies SET attrs = ? WHERE study_id = ?", (dumps(attrs), study.study_id)
            )

    def mark_finished(self, study: StudyRecord) -> None:
        with self._tx():
            self._check_owner(study)
            self.conn.execute(
                "UPDATE studies SET finished = 1 WHERE study_id = ?", (study.study_id,)
            )

    def copy_studies(
        self,
        source: StoreReader,
        names: Iterable[str] | None = None,
        *,
        unfinished: bool = False,
        prefix: str = "",
    ) -> Copied:
        """Copy studies, with every trial, from ``source`` into this store.

        Merges the stores of runs made elsewhere (another machine, a kept snapshot) into
        one: a copied study reports and resumes here as it would have there. Each study is
        checked in full first (:mod:`isoline.store_records`); a malformed one is refused
        and the others are still copied. What is written is the checked content, each
        study with all its trials in one transaction (all of it or nothing); its leases
        are not copied.

        Args:
            source: the store to read (it is not written).
            names: the studies to copy; default every finished study of ``source``
                (and every unfinished one with ``unfinished``).
            unfinished: also copy studies that have not reached their budget; they resume
                here by replay like any stored study.
            prefix: with ``names=None``, only the studies whose name starts with it.

        Returns:
            :class:`Copied`: the names copied, the names this store already holds (left
            as they are here), and ``(name, reason)`` of each study refused.

        Raises:
            StoreError: a named study is not in ``source``, or is unfinished and
                ``unfinished`` is False (nothing is copied then).
        """
        if source.path != ":memory:" and os.path.abspath(source.path) == os.path.abspath(self.path):
            raise StoreError(f"cannot copy studies from {self.path} into itself")
        if names is not None:
            names = list(dict.fromkeys(names))
            for name in names:
                if source.study_id(name) is None:
                    raise StoreError(f"no study {name!r} in {source.path}")
        out = Copied([], [], [])
        for name in source.study_names(prefix) if names is None else names:
            try:
                study = source.get_study(name)
                assert study is not None
                if not (study.finished or unfinished):
                    if names is None:
                        continue
                    raise StoreError(
                        f"study {name!r} in {source.path} is unfinished; pass unfinished=True "
                        "to copy it anyway"
                    )
                trials = source.trials(study)
            except StoreError as err:
                if names is not None and "unfinished" in str(err):
                    raise
                out.refused.append((name, str(err)))
                continue
            try:
                with self._tx():
                    if self.study_id(name) is not None:
                        out.skipped.append(name)
                        continue
                    self._insert_study(study, trials)
            except sqlite3.IntegrityError as err:
                out.refused.append((name, f"{source.path}: study {name!r} cannot be stored: {err}"))
                continue
            out.copied.append(name)
        return out

    def add_study(self, study: StudyRecord, trials: list[Trial]) -> None:
        """Store ``study`` (a checked record, e.g. another's renamed by
        :func:`dataclasses.replace`) with its ``trials`` in one transaction; raise
        :class:`StudyExists` if this store holds a study of that name."""
        with self._tx():
            if self.study_id(study.name) is not None:
                raise StudyExists(f"study {study.name!r} exists in {self.path}")
            self._insert_study(study, trials)

    def delete_studies(self, names: Iterable[str]) -> list[str]:
        """Delete studies, with their trials and leases, in one transaction.

        For a run to be made again from scratch (a changed method, a corrected problem):
        the next run under the same name starts a new study instead of resuming. Only
        the names are read, so a study whose record is malformed can be deleted too.

        Args:
            names: the studies to delete (as :meth:`study_names` gives them).

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
                study_id = self.study_id(name)
                if study_id is None:
                    raise StoreError(f"no study {name!r} in {self.path}")
                holder = self.leases.inspect(study_id)
                if holder is not None and not holder.stale(self.lease_grace):
                    what, advice = self.leases.explain(holder, name)
                    raise StoreError(f"{what}; stop that run before deleting the study. {advice}")
                ids.append((study_id,))
            for table in ("trials", "leases", "studies"):
                self.conn.executemany(f"DELETE FROM {table} WHERE study_id = ?", ids)
        return names

    def _insert_study(self, study: StudyRecord, trials: list[Trial]) -> None:
        """Inside a write transaction: insert a checked ``study`` and its ``trials``."""
        cursor = self.conn.execute(
            "INSERT INTO studies (name, method, seed, batch_size, options, space, budget,"
            " attrs, created, state_batch, finished, resume_format)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (study.name, study.method, study.seed, study.batch_size, dumps(study.options),
             dumps(study.space), study.budget, dumps(study.attrs), study.created,
             study.state_batch, int(study.finished), study.resume_format),
        )  # fmt: skip
        self.conn.executemany(
            "INSERT INTO trials (study_id, number, batch, x, u, y, status, error, info,"
            " started, finished, attempts, outputs)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (cursor.lastrowid, t.number, t.batch, dumps(t.x), dumps(t.u), t.y, t.status,
                 t.error, None if t.info is None else dumps(t.info), t.started, t.finished,
                 t.attempts, outputs_json(t.outputs))
                for t in trials
            ],
        )  # fmt: skip

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
        study_id = self.study_id(name)
        if study_id is None:
            raise StoreError(f"no study {name!r} in {self.path}")
        try:
            return self.leases.unlock(study_id, name, force=force, watch=watch)
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
                    (study.study_id, n, batch, dumps(x), dumps(np.asarray(u).tolist()))
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
        outputs: np.ndarray | None = None,
    ) -> None:
        """Commit one evaluation's outcome (``outputs``: its whole row, for a study with
        several outputs)."""
        with self._tx():
            self._check_owner(study)
            self.conn.execute(
                "UPDATE trials SET y = ?, status = ?, error = ?, info = ?, started = ?,"
                " finished = ?, outputs = ? WHERE study_id = ? AND number = ?",
                (
                    y,
                    status,
                    error,
                    None if info is None else dumps(info),
                    started,
                    finished,
                    outputs_json(outputs),
                    study.study_id,
                    number,
                ),
            )
            self.leases.renew(study.study_id)
