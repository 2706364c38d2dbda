"""The canon store's SQLite schema and its migrations.

The schema version lives in ``PRAGMA user_version``. ``MIGRATIONS`` is an ordered list: migration
``i`` (0-based) takes a database from version ``i`` to ``i + 1``. Opening a store applies the
missing ones in one transaction each; a database written by a newer incanon is refused with both
versions named, never silently read.

Story positions are stored as ``Position.key`` integers (``*_key`` columns): "at or before P" is
then one indexed integer comparison. Every list of the interchange format keeps its order in an
``ord`` column so an export gives back the lists as they were imported.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import incanon.canon.ddl as ddl
from incanon.errors import InputError
from incanon.sqlitedb import connect as connect_guarded, connect_read_only as connect_guarded_read_only, use_wal
from incanon.sqlitedb import require_database

#: File name of the database inside a store directory (the directory has room for other files).
DB_NAME = "canon.sqlite"

def _run_script(conn: sqlite3.Connection, script: str) -> None:
    # Not ``executescript``: it COMMITs first, which would split a migration from its version bump.
    statement = ""
    for line in script.splitlines(keepends=True):
        statement += line
        if sqlite3.complete_statement(statement):
            conn.execute(statement)
            statement = ""


def _v1_core(conn: sqlite3.Connection) -> None:
    _run_script(conn, ddl.V1_CORE)


def _v2_vectors(conn: sqlite3.Connection) -> None:
    _run_script(conn, ddl.V2_VECTORS)


def _v3_graph(conn: sqlite3.Connection) -> None:
    _run_script(conn, ddl.V3_GRAPH)


def _v4_graph_time(conn: sqlite3.Connection) -> None:
    _run_script(conn, ddl.V4_GRAPH_TIME)


def _v5_persona_time(conn: sqlite3.Connection) -> None:
    _run_script(conn, ddl.V5_PERSONA_TIME)


def _v6_secret_names(conn: sqlite3.Connection) -> None:
    _run_script(conn, ddl.V6_SECRET_NAMES)


def _v7_source_cards(conn: sqlite3.Connection) -> None:
    _run_script(conn, ddl.V7_SOURCE_CARDS)


def _v8_perception(conn: sqlite3.Connection) -> None:
    _run_script(conn, ddl.V8_PERCEPTION)


#: Ordered migrations: ``MIGRATIONS[i]`` takes a database from version ``i`` to ``i + 1``.
MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [
    _v1_core, _v2_vectors, _v3_graph, _v4_graph_time, _v5_persona_time, _v6_secret_names,
    _v7_source_cards, _v8_perception]
#: The schema version this code writes and reads.
SCHEMA_VERSION = len(MIGRATIONS)


def connect(db_path: Path, *, timeout: float = 30.0) -> sqlite3.Connection:
    """Open the database with the store's pragmas (WAL, foreign keys, busy timeout)."""
    # isolation_level=None: transactions are explicit (BEGIN ... COMMIT in ``transaction``), so
    # an import is exactly one transaction and a failed one leaves nothing behind.
    if db_path.exists():
        # An empty or foreign file would silently become a new store: refuse it first.
        require_database(db_path, "canon store")
    conn = connect_guarded(db_path, "canon store", timeout=timeout, isolation_level=None)
    conn.row_factory = sqlite3.Row
    try:
        # Before any pragma that writes (journal_mode): someone else's database stays untouched.
        if user_version(conn) == 0 and conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' LIMIT 1"
        ).fetchone():
            raise InputError("is a SQLite file but not an incanon canon store; nothing was changed",
                             source=str(db_path))
    except BaseException:
        conn.close()
        raise
    use_wal(conn, timeout)
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
    conn.execute("PRAGMA synchronous = NORMAL")  # safe with WAL; a crash loses at most the last commit
    return conn


def connect_read_only(db_path: Path, *, timeout: float = 30.0) -> sqlite3.Connection:
    """Open an existing store that this process only reads, where nobody may write it (a
    read-only file, folder or disk): no WAL switch, no migration, nothing written. A store of
    another schema version is refused, since it cannot be migrated here."""
    require_database(db_path, "canon store")
    conn = connect_guarded_read_only(db_path, "canon store", timeout=timeout, isolation_level=None)
    conn.row_factory = sqlite3.Row
    try:
        version = user_version(conn)
        if version == 0 and conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' LIMIT 1").fetchone():
            raise InputError("is a SQLite file but not an incanon canon store; nothing was changed",
                             source=str(db_path))
        if version != SCHEMA_VERSION:
            raise InputError(f"canon store schema version {version} differs from this incanon's ({SCHEMA_VERSION}) "
                             "and the store cannot be written to update it; open it once where it can be "
                             "written, or with the incanon that wrote it", source=str(db_path))
        conn.execute("PRAGMA query_only = ON")  # a slip in a reading command cannot write
    except BaseException:
        conn.close()
        raise
    return conn


def user_version(conn: sqlite3.Connection) -> int:
    """The schema version recorded in the database."""
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def migrate(
    conn: sqlite3.Connection,
    *,
    source: str,
    migrations: list[Callable[[sqlite3.Connection], None]] | None = None,
) -> int:
    """Bring the database up to the latest version; return the version it is at afterwards.

    Raises ``InputError`` if the database is newer than this code.
    """
    steps = MIGRATIONS if migrations is None else migrations
    current = user_version(conn)
    if current > len(steps):
        raise InputError(
            f"canon store schema version {current} is newer than this incanon supports "
            f"(version {len(steps)}); upgrade incanon to open it",
            source=source,
        )
    for version in range(current, len(steps)):
        # BEGIN IMMEDIATE takes the write lock first, so two processes opening a fresh store at
        # once cannot both run the same migration; re-read the version once the lock is held.
        conn.execute("BEGIN IMMEDIATE")
        try:
            if user_version(conn) != version:
                conn.execute("COMMIT")
                continue
            steps[version](conn)
            conn.execute(f"PRAGMA user_version = {version + 1}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    return user_version(conn)


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction: everything inside commits together or not at all."""
    # IMMEDIATE: take the write lock up front, so a concurrent writer waits (busy timeout)
    # instead of failing halfway through with "database is locked".
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
