"""A SQLite file of kept rows, one per conversation (the web app's chats, the scenes): opened in
WAL mode with its schema, safe to use from several threads, each change one statement.

A row can be damaged (edited by hand, a disk error, another program): a JSON column that is not
JSON, or JSON of the wrong shape. Such a row is left out of lists, noted in the log once and
counted by :meth:`KeptRows.damaged`; loading it raises :class:`DamagedRow` naming the row and
what is wrong. The other rows are unaffected."""

from __future__ import annotations

import datetime as dt
import logging
import sqlite3
import threading
from pathlib import Path
from typing import Any

from incanon.errors import InputError
from incanon.sqlitedb import connect, use_wal

log = logging.getLogger(__name__)


class DamagedRow(InputError):
    """A kept row that cannot be read back (the message names it and the damage)."""


class KeptRows:
    """The file at ``path`` holding ``table`` (created by ``schema``), keyed by ``id``."""

    def __init__(self, path: Path, what: str, schema: str, table: str) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._table = table
        self._damaged: set[str] = set()
        self._lock = threading.Lock()
        self._conn = connect(self.path, what, check_same_thread=False, isolation_level=None, timeout=30)
        use_wal(self._conn, 30)
        self._conn.executescript(schema)

    #: An SQL condition true for a row whose JSON columns can be read (a subclass sets it);
    #: checked in SQLite, so a list costs no parse in Python.
    readable = "1"

    def damaged(self) -> list[str]:
        """Ids of the rows a list leaves out because they are damaged (each logged once)."""
        found = {r[0] for r in self._run(f"SELECT id FROM {self._table} WHERE NOT ({self.readable})")}
        for row_id in sorted(found - self._damaged):
            self.damage(row_id, "a JSON column is not JSON of the kept shape", "found listing")
        return sorted(found | self._damaged)

    def listable(self) -> str:
        """The SQL condition of the rows a list shows: readable, and not found damaged on load."""
        if not self._damaged:
            return self.readable
        ids = ", ".join("'" + i.replace("'", "''") + "'" for i in sorted(self._damaged))
        return f"({self.readable}) AND id NOT IN ({ids})"

    def damage(self, row_id: str, what: str, detail: str) -> DamagedRow:
        """Note that row ``row_id`` is damaged (logged once) and the error to raise for it."""
        if row_id not in self._damaged:
            self._damaged.add(row_id)
            log.warning("%s: kept %s %.60r is damaged (%s: %s); it is left out of lists", self.path,
                        self._table[:-1], row_id, what, detail)
        return DamagedRow(f"kept {self._table[:-1]} {row_id!r} in {self.path.name} is damaged: {what} ({detail}); "
                          f"delete it to forget it")

    def _run(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """One statement under the lock; its rows."""
        with self._lock:
            return self._conn.execute(sql, params).fetchall()

    def delete(self, row_id: str) -> None:
        """Forget one row."""
        self._run(f"DELETE FROM {self._table} WHERE id = ?", (row_id,))
        self._damaged.discard(row_id)

    def close(self) -> None:
        """Close the file."""
        with self._lock:
            try:
                self._conn.close()
            except sqlite3.Error:
                pass


def damage_of(exc: Exception) -> str:
    """A short account of why a row did not read (the first problem pydantic or json names)."""
    errors = getattr(exc, "errors", None)
    if callable(errors):
        first = errors()[:1]
        if first:
            where = ".".join(str(p) for p in first[0].get("loc", ()))
            return f"{where or 'the row'}: {first[0].get('msg', 'invalid')}"[:200]
    return str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__


def now() -> str:
    """The time a row is written, in UTC (sorts as text)."""
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="microseconds")


__all__ = ["DamagedRow", "KeptRows", "damage_of", "now"]
