"""Helpers shared by the run tests (a uniquely named module: importable from any test file)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from incanon.runs import RunItem


def make_items(n: int) -> list[RunItem]:
    """``n`` items ``i0000``, ``i0001``, ... with input ``{"x": k}``."""
    return [RunItem(id=f"i{k:04d}", input={"x": k}) for k in range(n)]


def ok_count(path: Path) -> int:
    """Samples of status ok in the run store at ``path`` (0 before it exists or has its schema)."""
    if not path.exists():
        return 0
    try:
        with sqlite3.connect(path, timeout=5) as db:
            return db.execute("SELECT COUNT(*) FROM samples WHERE status = 'ok'").fetchone()[0]
    except sqlite3.OperationalError:
        return 0  # schema not created yet
