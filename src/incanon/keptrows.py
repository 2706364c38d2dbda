"""A SQLite file of kept rows, one per conversation (the web app's chats, the scenes): opened in
WAL mode with its schema, safe to use from several threads, each change one statement."""

from __future__ import annotations

import datetime as dt
import sqlite3
import threading
from pathlib import Path
from typing import Any

from incanon.sqlitedb import connect, use_wal


class KeptRows:
    """The file at ``path`` holding ``table`` (created by ``schema``), keyed by ``id``."""

    def __init__(self, path: Path, what: str, schema: str, table: str) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._table = table
        self._lock = threading.Lock()
        self._conn = connect(self.path, what, check_same_thread=False, isolation_level=None, timeout=30)
        use_wal(self._conn, 30)
        self._conn.executescript(schema)

    def _run(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """One statement under the lock; its rows."""
        with self._lock:
            return self._conn.execute(sql, params).fetchall()

    def delete(self, row_id: str) -> None:
        """Forget one row."""
        self._run(f"DELETE FROM {self._table} WHERE id = ?", (row_id,))

    def close(self) -> None:
        """Close the file."""
        with self._lock:
            try:
                self._conn.close()
            except sqlite3.Error:
                pass


def now() -> str:
    """The time a row is written, in UTC (sorts as text)."""
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="microseconds")


__all__ = ["KeptRows", "now"]
