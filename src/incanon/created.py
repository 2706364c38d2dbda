"""What this command created, so a failed command leaves nothing new behind.

A store or folder is created the moment something first opens it, long before the command knows
whether it will succeed: a full disk then leaves a 0-byte ``runs.sqlite``, a store holding only
its schema, or an empty folder. Code that creates such a path notes it here with
:func:`track_new`; when the command fails, the CLI calls :func:`discard_new`, which removes each
noted path that is still there, unless its ``keep`` check says it now holds work worth keeping
(a run store with finished samples stays, so the run resumes from them).
"""

from __future__ import annotations

import logging
import os
import shutil
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

log = logging.getLogger(__name__)

_SQLITE_SIDE_FILES = ("-wal", "-shm", "-journal")

_lock = threading.Lock()
_noted: list[tuple[Path, Callable[[], bool]]] = []


def _never() -> bool:
    return False


def track_new(path: str | os.PathLike[str], keep: Callable[[], bool] | None = None) -> Path | None:
    """Note ``path`` (a file or folder about to be created) if it does not exist yet; when its
    parent folders are missing too, the topmost missing folder is noted instead. Returns the
    noted path, or None when ``path`` exists already (nothing new to undo)."""
    target = Path(path).expanduser().absolute()
    if os.path.lexists(target):
        return None
    top = target
    while not os.path.lexists(top.parent) and top.parent != top:
        top = top.parent
    with _lock:
        _noted.append((top, keep or _never))
    return top


def reset() -> None:
    """Forget every noted path (the start of a command)."""
    with _lock:
        _noted.clear()


def holds_rows(db: Path, table: str) -> Callable[[], bool]:
    """A ``keep`` check: true when the SQLite file ``db`` has a row in ``table`` (read only;
    unreadable counts as empty, since nothing readable would be lost)."""

    def check() -> bool:
        if not db.is_file() or db.stat().st_size == 0:
            return False
        try:
            conn = sqlite3.connect(f"file:{quote(str(db))}?mode=ro", uri=True, timeout=2.0)
            try:
                return conn.execute(f"SELECT 1 FROM {table} LIMIT 1").fetchone() is not None
            finally:
                conn.close()
        except sqlite3.Error:
            return False

    return check


def not_empty(folder: Path) -> Callable[[], bool]:
    """A ``keep`` check: true when ``folder`` holds anything."""
    return lambda: folder.is_dir() and any(folder.iterdir())


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
        return
    path.unlink(missing_ok=True)
    for suffix in _SQLITE_SIDE_FILES:
        Path(str(path) + suffix).unlink(missing_ok=True)


def discard_new() -> list[Path]:
    """Remove the noted paths that hold nothing worth keeping, newest first; returns them.
    Best effort: a path that cannot be removed is logged and left."""
    with _lock:
        noted = list(reversed(_noted))
        _noted.clear()
    removed = []
    for path, keep in noted:
        try:
            if not os.path.lexists(path) or keep():
                continue
            _remove(path)
            removed.append(path)
        except OSError as exc:
            log.debug("could not remove %s: %s", path, exc)
    return removed
