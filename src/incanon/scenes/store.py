"""Scenes kept in SQLite, so a scene can be reopened where it was (the CLI's ``--reopen`` and the
web app's kept scenes).

Each scene is one row: its id, work, cast present, position, order, how many lines, and the
whole scene (``incanon-scene/1``, the format ``/save`` writes). A row is written after every
change in one statement, so a crash loses at most the line being answered. The design is the
chat store's (:mod:`incanon.serve.chat_store`).

The file is ``INCANON_HOME/scenes.sqlite`` unless told otherwise.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from incanon.scenes.record import Scene
from incanon.keptrows import KeptRows, damage_of, now

_SCHEMA = """
CREATE TABLE IF NOT EXISTS scenes (
    id         TEXT PRIMARY KEY,
    work       TEXT NOT NULL,
    present    TEXT NOT NULL,          -- JSON list of the characters in the scene now
    at         TEXT NOT NULL,          -- where the scene stands now (a position)
    lines      INTEGER NOT NULL,
    created    TEXT NOT NULL,
    updated    TEXT NOT NULL,
    scene      TEXT NOT NULL           -- incanon-scene/1 JSON
);
CREATE INDEX IF NOT EXISTS scenes_updated ON scenes(updated);
"""


def default_scenes_path() -> Path:
    """``INCANON_HOME/scenes.sqlite``."""
    from incanon.paths import home

    return home() / "scenes.sqlite"


@dataclass(frozen=True)
class SavedScene:
    """One kept scene, as a list shows it."""

    id: str
    work: str
    present: list[str]
    at: str
    lines: int
    created: str
    updated: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        return dict(self.__dict__)


def _saved(row: tuple[Any, ...]) -> SavedScene:
    return SavedScene(row[0], row[1], json.loads(row[2]), *row[3:7])


class ScenesStore(KeptRows):
    """The scenes SQLite file (see the module docstring). Safe to use from several threads."""

    readable = ("json_valid(present) AND json_type(present) = 'array'"
                " AND json_valid(scene) AND json_type(scene) = 'object'")

    def __init__(self, path: Path | None = None) -> None:
        super().__init__(Path(path) if path is not None else default_scenes_path(), "scenes store", _SCHEMA,
                         "scenes")

    def save(self, scene: Scene) -> None:
        """Write the scene's current state (one statement: all of it or none)."""
        text = scene.model_dump_json()
        stamp = now()
        with self._lock:
            self._conn.execute(
                "INSERT INTO scenes (id, work, present, at, lines, created, updated, scene)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET present = excluded.present,"
                " at = excluded.at, lines = excluded.lines, updated = excluded.updated, scene = excluded.scene",
                (scene.id, scene.work, json.dumps(scene.present), scene.at, len(scene.lines), stamp, stamp, text))

    def load(self, scene_id: str) -> Scene | None:
        """The kept scene ``scene_id`` (None: no such scene)."""
        with self._lock:
            row = self._conn.execute("SELECT scene, present FROM scenes WHERE id = ?", (scene_id,)).fetchone()
        if row is None:
            return None
        try:
            present = json.loads(row[1])
            if not isinstance(present, list) or not all(isinstance(p, str) for p in present):
                raise ValueError("not a list of names")
        except ValueError as exc:
            raise self.damage(scene_id, "its present column is not a JSON list of names", damage_of(exc)) from None
        try:
            return Scene.model_validate_json(row[0])
        except ValueError as exc:
            raise self.damage(scene_id, "its scene is not an incanon-scene record", damage_of(exc)) from None

    def latest(self) -> Scene | None:
        """The most recently changed scene (None: none kept)."""
        found = self.list(limit=1)
        return self.load(found[0].id) if found else None

    def list(self, limit: int = 200) -> list[SavedScene]:
        """The kept scenes, most recently changed first."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT id, work, present, at, lines, created, updated FROM scenes"
                f" WHERE {self.listable()} ORDER BY updated DESC, id LIMIT ?", (limit,)).fetchall()
        return [_saved(r) for r in rows]



__all__ = ["SavedScene", "ScenesStore", "default_scenes_path"]
