"""The on-disk format of the run store: its SQL tables and version numbers.

Version 1 files (pickled method states, no leases) are migrated to version 2, and
version 2 files (one value per trial) to version 3 (``trials.outputs``: the whole row of
outputs of several objectives and constraints), by :class:`isoline.store.Store` on first
write access.
"""

from __future__ import annotations

__all__ = [
    "FORMAT",
    "LEASES_TABLE",
    "OUTPUTS_COLUMN",
    "RESUME_FORMATS",
    "TABLES",
    "VERSION",
    "statements",
]

FORMAT = "isoline-store"
#: file format written by this version; version 1 files are migrated on first write access
VERSION = 3
#: resume protocols this isoline can continue; "replay-1": re-ask every stored batch from
#: the seed and tell its stored values, checking that the re-asked points are the stored ones
RESUME_FORMATS = ("replay-1",)

#: the tables of a version-3 store
TABLES = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE studies (
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
    state_batch INTEGER NOT NULL DEFAULT -1,
    finished INTEGER NOT NULL DEFAULT 0,
    resume_format TEXT NOT NULL DEFAULT 'replay-1'
);
CREATE TABLE trials (
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
    attempts INTEGER NOT NULL DEFAULT 0,
    outputs TEXT,
    UNIQUE (study_id, number)
);
CREATE INDEX trials_by_study ON trials (study_id, number);
CREATE TABLE leases (
    study_id INTEGER PRIMARY KEY REFERENCES studies(study_id),
    token TEXT NOT NULL,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    pid_start TEXT,
    acquired REAL NOT NULL,
    heartbeat REAL NOT NULL
);
"""
#: the table version 2 added to version 1
LEASES_TABLE = TABLES[TABLES.index("CREATE TABLE leases") :]
#: the column version 3 added to the trials table: the JSON list of a trial's outputs
#: (objectives then constraints, ``null`` for a non-finite one), or NULL
OUTPUTS_COLUMN = "ALTER TABLE trials ADD COLUMN outputs TEXT"


def statements(script: str) -> list[str]:
    """The SQL statements of ``script``, one string each."""
    return [s.strip() for s in script.split(";") if s.strip()]
