"""The store file: its path checks, race-free creation, migration and transactions.

Creation is safe against another process creating the same new file at the same moment.
SQLite does not always wait out a lock: when a connection that holds a read lock needs a
write lock while another connection holds one, it answers "database is locked" at once,
without calling the busy handler, since waiting could deadlock. Switching a new file to
WAL (``PRAGMA journal_mode = WAL``) is such a read-then-write step, so two processes
creating one file could fail at once whatever the busy timeout. Here every step of
creation (the schema in one exclusive transaction, then the switch to WAL) is retried
until the connection's timeout, and the schema is written only by the process that finds
the file still empty inside its exclusive transaction.
"""

from __future__ import annotations

import os
import random
import sqlite3
import time
from collections.abc import Callable
from typing import TypeVar

from isoline.store_records import StoreError
from isoline.store_schema import (
    FORMAT,
    LEASES_TABLE,
    OUTPUTS_COLUMN,
    TABLES,
    VERSION,
    statements,
)

__all__ = [
    "Transaction",
    "check_columns",
    "check_path",
    "create",
    "migrate",
    "open_file",
    "retry_busy",
    "tables",
]

T = TypeVar("T")


class Transaction:
    """``with Transaction(conn):`` one write transaction (``BEGIN IMMEDIATE``, or
    ``EXCLUSIVE``), committed on success and rolled back on an exception."""

    def __init__(self, conn: sqlite3.Connection, kind: str = "IMMEDIATE") -> None:
        self.conn = conn
        self.kind = kind

    def __enter__(self) -> None:
        self.conn.execute(f"BEGIN {self.kind}")

    def __exit__(self, exc_type: object, *rest: object) -> None:
        self.conn.execute("ROLLBACK" if exc_type else "COMMIT")


def tables(conn: sqlite3.Connection) -> set[str]:
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def retry_busy(step: Callable[[], T], timeout: float) -> T:
    """``step()``, called again after a short random pause while SQLite answers "database
    is locked" (or "busy"), until ``timeout`` seconds have passed."""
    deadline = time.monotonic() + timeout
    pause = 0.001
    while True:
        try:
            return step()
        except sqlite3.OperationalError as err:
            text = str(err)
            if ("locked" not in text and "busy" not in text) or time.monotonic() > deadline:
                raise
        time.sleep(pause * (0.5 + random.random()))
        pause = min(pause * 2, 0.1)


def create(conn: sqlite3.Connection, memory: bool, timeout: float) -> None:
    """Write the schema and format record into an empty database, then switch it to WAL;
    each step retried while another process holds the file (see the module docstring)."""

    def schema() -> None:
        with Transaction(conn, "EXCLUSIVE"):
            if tables(conn):  # another process created it meanwhile
                return
            for statement in statements(TABLES):
                conn.execute(statement)
            conn.execute(
                "INSERT INTO meta VALUES ('format', ?), ('version', ?)", (FORMAT, str(VERSION))
            )

    retry_busy(schema, timeout)
    if not memory:
        use_wal(conn, timeout)


def use_wal(conn: sqlite3.Connection, timeout: float) -> None:
    """Switch the file to WAL unless it is already (retried while another process holds
    it); a store whose creator stopped before this step is switched by its next writer."""
    (mode,) = retry_busy(lambda: conn.execute("PRAGMA journal_mode").fetchone(), timeout)
    if str(mode).lower() != "wal":
        retry_busy(lambda: conn.execute("PRAGMA journal_mode = WAL").fetchone(), timeout)


def drop_and_create(conn: sqlite3.Connection, path: str, found: set[str], timeout: float) -> None:
    """Recreate a store whose creation by an isoline older than atomic creation was
    interrupted (isoline's tables, all empty, and no format record)."""
    with Transaction(conn):
        for t in found:
            (n,) = conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()
            if n:
                raise StoreError(
                    f"{path} has isoline tables but no format record; refusing to touch it"
                )
        for t in found:
            conn.execute(f"DROP TABLE {t}")
    create(conn, False, timeout)


def migrate(conn: sqlite3.Connection, path: str, version: int) -> None:
    """Version 1 -> 2: drop the pickled method states (never read), add the attempts
    column, the resume format and the leases table. Version 2 -> 3: add the trials'
    ``outputs`` column."""
    if version not in (1, 2):
        raise StoreError(f"{path} has unknown store version {version}")
    with Transaction(conn):
        (now,) = conn.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
        if int(now) >= VERSION:  # migrated by another process meanwhile
            return
        if int(now) == 1:
            _one_to_two(conn)
        conn.execute(OUTPUTS_COLUMN)
        conn.execute("UPDATE meta SET value = ? WHERE key = 'version'", (str(VERSION),))


def _one_to_two(conn: sqlite3.Connection) -> None:
    """Inside a write transaction: the steps from version 1 to version 2."""
    conn.execute("ALTER TABLE studies DROP COLUMN state")
    conn.execute("ALTER TABLE studies ADD COLUMN resume_format TEXT NOT NULL DEFAULT 'replay-1'")
    conn.execute("ALTER TABLE trials ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0")
    conn.execute("UPDATE trials SET attempts = 1 WHERE status != 'pending' OR started IS NOT NULL")
    conn.execute(LEASES_TABLE)


#: the columns every reader needs, per table (a version-1 file lacks the others)
NEEDED = {
    "meta": {"key", "value"},
    "studies": {"study_id", "name", "method", "seed", "batch_size", "options", "space",
                "budget", "attrs", "created", "state_batch", "finished"},
    "trials": {"trial_id", "study_id", "number", "batch", "x", "u", "y", "status", "error",
               "info", "started", "finished"},
}  # fmt: skip


def check_columns(conn: sqlite3.Connection, path: str, version: int) -> dict[str, set[str]]:
    """The columns of each table; refuse a store that lacks a table or a column this
    version reads."""
    needed = dict(NEEDED)
    if version >= 2:
        needed["leases"] = {"study_id", "token", "host", "pid", "heartbeat"}
        needed["trials"] = needed["trials"] | {"attempts"}
        needed["studies"] = needed["studies"] | {"resume_format"}
    if version >= 3:
        needed["trials"] = needed["trials"] | {"outputs"}
    present = {}
    for table, columns in needed.items():
        have = {str(r[1]) for r in conn.execute(f"PRAGMA table_info({table})")}
        present[table] = have
        if not have:
            raise StoreError(f"{path} has no {table!r} table; the store is damaged or was edited")
        missing = sorted(columns - have)
        if missing:
            raise StoreError(
                f"{path}: table {table!r} lacks the columns {missing}; the store is damaged or "
                "was edited"
            )
    return present


def check_path(path: str, create: bool) -> None:
    if os.path.isdir(path):
        raise StoreError(
            f"storage {path!r} is a directory; give a file path such as {path}/runs.db"
        )
    if os.path.exists(path):
        with open(path, "rb") as fh:
            head = fh.read(16)
        if head and head != b"SQLite format 3\x00":
            tail = "; refusing to overwrite it" if create else " (no isoline store)"
            raise StoreError(f"{path} exists and is not a SQLite database{tail}")
        return
    if not create:
        raise StoreError(f"no store at {path!r} (no such file)")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise StoreError(f"cannot create store {path!r}: directory {folder!r} does not exist")


def open_file(
    conn: sqlite3.Connection,
    path: str,
    found: set[str],
    memory: bool,
    readonly: bool,
    timeout: float,
) -> int:
    """Make ``conn``'s file, holding the tables ``found``, ready as an isoline store and
    return its store version: an empty file is created (unless ``readonly``), an older
    version migrated (unless ``readonly``), a file switched to WAL; a file isoline did not
    create, of another format or of a newer version is refused (:class:`StoreError`)."""
    if not found:
        if readonly:
            raise StoreError(f"{path} is an empty file, not an isoline store")
        create(conn, memory, timeout)
        return VERSION
    if "meta" not in found:
        raise StoreError(
            f"{path} is a SQLite database that isoline did not create "
            f"(tables {sorted(found)}); refusing to write to it"
        )
    fmt = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    if not fmt and found <= {"meta", "studies", "trials", "leases"} and not readonly:
        # an interrupted creation by an isoline older than atomic creation
        drop_and_create(conn, path, found, timeout)
        return VERSION
    if fmt.get("format") != FORMAT:
        raise StoreError(f"{path} is not an isoline store (meta {fmt!a})")
    version = fmt.get("version")
    if not (isinstance(version, str) and version.isdigit() and len(version) < 6):
        raise StoreError(f"{path} has a malformed store version {version!a}")
    if int(version) > VERSION:
        raise StoreError(
            f"{path} has store version {version}; this isoline reads <= {VERSION}: "
            "upgrade isoline to open it"
        )
    if int(version) < VERSION and not readonly:
        migrate(conn, path, int(version))
        version = str(VERSION)
    if not (readonly or memory):
        use_wal(conn, timeout)
    return int(version)
