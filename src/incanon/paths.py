"""Where incanon keeps its files by default.

``INCANON_HOME`` (default ``~/.incanon``) holds the response cache and the run store; every
command also takes explicit paths, so nothing forces this location.
"""

from __future__ import annotations

import os
from pathlib import Path


def home() -> Path:
    """The incanon home folder, created on first use."""
    path = Path(os.environ.get("INCANON_HOME", Path.home() / ".incanon")).expanduser()
    if not path.is_dir():
        from incanon.created import not_empty, track_new

        track_new(path, keep=not_empty(path))  # made for a command that failed: not left empty
    path.mkdir(parents=True, exist_ok=True)
    return path


def default_cache_path() -> Path:
    """The default response cache (SQLite)."""
    return home() / "cache.sqlite"


def default_runs_path() -> Path:
    """The default run store (SQLite)."""
    return home() / "runs.sqlite"
