"""Reading a store: studies and trials, every row checked before it is returned.

:class:`StoreReader` is the read side of :class:`isoline.store.Store`: it finds studies by
name, lists them, and turns their rows into records through the checks of
:mod:`isoline.store_records`. Names are also readable on their own, without the rest of a
record, so that a study whose content is malformed can still be listed and deleted.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from isoline.store_records import (
    StoreError,
    StudyRecord,
    Trial,
    decode_text,
    read_study,
    read_trial,
    space_dim,
)
from isoline.store_schema import RESUME_FORMATS

__all__ = ["STUDY_COLUMNS", "TRIAL_COLUMNS", "StoreReader"]

#: the columns of a study row, as :func:`isoline.store_records.read_study` reads them
STUDY_COLUMNS = (
    "study_id",
    "name",
    "method",
    "seed",
    "batch_size",
    "options",
    "space",
    "budget",
    "attrs",
    "created",
    "state_batch",
    "finished",
    "resume_format",
)
#: the columns of a trial row, as :func:`isoline.store_records.read_trial` reads them
TRIAL_COLUMNS = ("number", "batch", "x", "u", "y", "status", "error", "info", "started",
                 "finished", "attempts", "outputs")  # fmt: skip


class StoreReader:
    """The read methods of a store on ``conn`` (set up by :class:`isoline.store.Store`)."""

    conn: sqlite3.Connection
    path: str
    #: the columns each table of this file has
    _present: dict[str, set[str]]
    #: the columns read from the studies and trials tables
    _columns: dict[str, list[str]]

    def get_study(self, name: str) -> StudyRecord | None:
        """The study named ``name``, every field checked (:mod:`isoline.store_records`),
        or None if there is none.

        Raises:
            StoreError: its record is malformed (the message names the study and field).
        """
        study_id = self.study_id(name)
        if study_id is None:
            return None
        return self._study(study_id)

    def studies(self, prefix: str = "") -> list[StudyRecord]:
        """Every study whose name starts with ``prefix``, in creation order, checked as by
        :meth:`get_study` (a malformed one raises :class:`StoreError`)."""
        return [self._study(i) for i, _ in self._names(prefix)]

    def study_names(self, prefix: str = "") -> list[str]:
        """The names of the studies (``prefix`` first), read without checking the rest of
        their records, so a malformed study can still be listed and deleted. A name
        stored as invalid UTF-8 comes with its bytes as surrogate escapes, as a shell
        argument of those bytes arrives in ``sys.argv``."""
        return [n for _, n in self._names(prefix)]

    def study_id(self, name: str) -> int | None:
        """The id of the study named ``name`` (matched as :meth:`study_names` gives it)."""
        if isinstance(name, str):
            try:
                name.encode("utf-8")
            except UnicodeEncodeError:  # a malformed stored name, as study_names gives it
                return next((i for i, n in self._names("") if n == name), None)
        # a name stored as a BLOB of valid UTF-8 is listed as its text: match it too
        rows = self._read(
            "SELECT study_id FROM studies WHERE name = ? OR name = CAST(? AS BLOB)",
            (name, name),
        )
        if not rows:
            return None
        if not isinstance(rows[0][0], int):
            raise StoreError(f"{self.path}: study {name!r} has a malformed id {rows[0][0]!a}")
        return int(rows[0][0])

    def _names(self, prefix: str) -> list[tuple[int, str]]:
        out = []
        for study_id, name in self._read("SELECT study_id, name FROM studies ORDER BY study_id"):
            if isinstance(name, bytes):
                name = decode_text(name)
            if not isinstance(study_id, int) or not isinstance(name, str):
                raise StoreError(
                    f"{self.path}: a study has a malformed id or name ({study_id!a}, {name!a})"
                )
            if name.startswith(prefix):
                out.append((study_id, name))
        return out

    def _study(self, study_id: int) -> StudyRecord:
        rows = self._read(
            f"SELECT {', '.join(self._study_columns())} FROM studies WHERE study_id = ?",
            (study_id,),
        )
        if not rows:
            raise StoreError(f"{self.path}: study id {study_id} vanished while being read")
        return read_study(dict(zip(self._columns["studies"], rows[0])), self.path)

    def _study_columns(self) -> list[str]:
        """The SELECT list of a study row (constants for what a version-1 file lacks)."""
        cols = self._columns["studies"]
        return [repr(RESUME_FORMATS[0]) if c not in self._present["studies"] else c for c in cols]

    def _read(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        """Rows of a query; a damaged file raises :class:`StoreError`."""
        try:
            return self.conn.execute(sql, params).fetchall()
        except (sqlite3.DatabaseError, UnicodeEncodeError, OverflowError) as err:
            raise StoreError(f"{self.path}: cannot read the store ({err})") from None

    def trials(self, study: StudyRecord) -> list[Trial]:
        """The study's trials in order, every field checked (:mod:`isoline.store_records`).

        Raises:
            StoreError: a trial is malformed (the message names study, trial and field),
                or two trials share a number.
        """
        cols = self._columns["trials"]
        absent = {"outputs": "NULL"}
        select = [c if c in self._present["trials"] else absent.get(c, "0") for c in cols]
        rows = self._read(
            f"SELECT {', '.join(select)} FROM trials WHERE study_id = ? ORDER BY number",
            (study.study_id,),
        )
        dim = space_dim(study.space)
        out = [read_trial(dict(zip(cols, r)), study, dim, self.path) for r in rows]
        numbers = [t.number for t in out]
        if len(set(numbers)) != len(numbers):
            raise StoreError(f"{self.path}: study {study.name!r} has two trials of one number")
        return out
