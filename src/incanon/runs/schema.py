"""The run store's SQLite schema, and creating it in a new file."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from incanon.errors import ConfigError, InputError

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id        TEXT PRIMARY KEY,
    benchmark TEXT NOT NULL,
    config    TEXT NOT NULL,              -- RunConfig as JSON
    status    TEXT NOT NULL,              -- running | interrupted | finished | crashed | stopped-budget
    created   TEXT NOT NULL,
    updated   TEXT NOT NULL,
    total     INTEGER,                    -- planned samples, when known
    totals    TEXT NOT NULL DEFAULT '{}', -- JSON: usage spent over all attempts, elapsed
    pid       INTEGER,                    -- process that last ran it (stale-run detection)
    host      TEXT
);
CREATE TABLE IF NOT EXISTS samples (
    run_id     TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    item_id    TEXT NOT NULL,
    epoch      INTEGER NOT NULL DEFAULT 0,
    input_hash TEXT NOT NULL,
    input      TEXT NOT NULL,
    outputs    TEXT,
    scores     TEXT,
    extra      TEXT,
    usage      TEXT NOT NULL DEFAULT '{}',
    started    TEXT,
    finished   TEXT,
    duration_s REAL NOT NULL DEFAULT 0,
    status     TEXT NOT NULL CHECK (status IN ('ok', 'error')),
    error_type TEXT,
    error      TEXT,
    traceback  TEXT,
    attempts   INTEGER NOT NULL DEFAULT 1,
    UNIQUE (run_id, item_id, epoch)
);
CREATE INDEX IF NOT EXISTS samples_by_status ON samples (run_id, status);
"""


def check_schema(db: sqlite3.Connection, path: Path, *, creating: bool = False) -> None:
    """Refuse a SQLite file that is not a run store of a version this code reads (without
    writing to it): no command may turn someone's database into a run store. ``creating``:
    an empty database is fine (the schema is about to be written)."""
    (version,) = db.execute("PRAGMA user_version").fetchone()
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not {"runs", "samples"} <= tables and (tables or not creating):
        raise InputError("is a SQLite file but not an incanon run store (no runs/samples tables); "
                         "nothing was changed", source=str(path))
    if version > SCHEMA_VERSION:
        raise ConfigError(
            f"run store {path} was written by a newer incanon (schema {version}); upgrade incanon to read it"
        )


def ensure_schema(db: sqlite3.Connection, path: Path) -> None:
    """Create the tables in ``db`` unless they are there (``db`` in autocommit mode).

    Readers (``incanon runs show`` during a run) must not need the write lock, so the schema is
    only written when the file does not carry this schema version yet.
    """
    (version,) = db.execute("PRAGMA user_version").fetchone()
    if version == SCHEMA_VERSION:
        return
    if version > SCHEMA_VERSION:
        raise ConfigError(
            f"run store {path} was written by a newer incanon (schema {version}); "
            "upgrade incanon to read it"
        )
    db.execute("BEGIN IMMEDIATE")
    try:
        for statement in _SCHEMA.split(";"):
            if statement.strip():
                db.execute(statement)
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
