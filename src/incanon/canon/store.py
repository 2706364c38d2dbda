"""``CanonStore``: the SQLite canon of one or more works, and the door to knowledge scopes.

A store is a directory holding ``canon.sqlite`` (and room for other files later). Opening it
applies any pending schema migrations. Reads return the records of ``incanon.canon.records``;
``scope()`` gives the filter that keeps an agent in canon.

One store object holds one SQLite connection: use it from one thread, and open another store
object (on the same directory) per extra thread or process; WAL lets readers run while a
writer writes.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType

import numpy as np

from incanon import paths
import incanon.canon.exporter as exporter
import incanon.canon.importer as importer
import incanon.canon.reads as reads
import incanon.canon.vectors as vectors
from incanon.canon.names import did_you_mean, listing, norm
from incanon.canon.position import Position, PositionTooLong
from incanon.canon.records import (
    CharacterRecord,
    ChunkRecord,
    EntityRecord,
    FactRecord,
    MessageRecord,
    ProbeRecord,
    RelationRecord,
    SceneRecord,
    TimePointRecord,
    WorkRecord,
)
from incanon.canon.schema import DB_NAME, connect, connect_read_only, migrate, transaction, user_version
from incanon.canon.scope import KnowledgeScope
from incanon.canon.validate import axis_forms
from incanon.canon.vectors import VectorSet
from incanon.canon.world import World
from incanon.created import holds_rows, track_new
from incanon.errors import InputError, NotFoundError
from incanon.printable import quoted


def default_store_path() -> Path:
    """``INCANON_CANON`` if set, else ``<incanon home>/canon``."""
    env = os.environ.get("INCANON_CANON")
    return Path(env).expanduser() if env else paths.home() / "canon"


class CanonStore:
    """The canon store. Create with ``CanonStore.open(directory)``."""

    def __init__(self, conn: sqlite3.Connection, path: Path):
        self._conn = conn
        self._cache = vectors.VectorCache()
        self.path = path
        """The store directory."""

    # -- lifecycle -------------------------------------------------------------------------
    @classmethod
    def open(cls, path: str | os.PathLike[str], *, read_only: bool = False) -> "CanonStore":
        """Open (creating if missing) the store in directory ``path``, migrating its schema.

        ``read_only``: the caller only reads an existing store. Where its file or folder cannot
        be written (a read-only folder or disk), it is then opened read-only instead of refused;
        where they can, it opens as usual."""
        root = Path(path).expanduser()
        if root.exists() and not root.is_dir():
            raise InputError(f"canon store {root} is a file; a store is a directory (it holds {DB_NAME})")
        db = root / DB_NAME
        if read_only and db.is_file() and not (os.access(db, os.W_OK) and os.access(root, os.W_OK)):
            return cls(connect_read_only(db), root)
        # A store this command creates goes again if the command fails before a work is in it.
        track_new(root if not root.exists() else db, keep=holds_rows(db, "works"))
        root.mkdir(parents=True, exist_ok=True)
        conn = connect(db)
        try:
            migrate(conn, source=str(db))
        except BaseException:
            conn.close()
            raise
        return cls(conn, root)

    @property
    def db_path(self) -> Path:
        """The SQLite file."""
        return self.path / DB_NAME

    @property
    def schema_version(self) -> int:
        """The schema version of the open database."""
        return user_version(self._conn)

    def data_version(self) -> tuple[int, int]:
        """Changes whenever the store's content may have: SQLite's data version (commits by other
        connections) and this connection's own change count. For caches of derived views."""
        return int(self._conn.execute("PRAGMA data_version").fetchone()[0]), self._conn.total_changes

    def close(self) -> None:
        """Close the connection."""
        self._conn.close()

    def __enter__(self) -> "CanonStore":
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    # -- works -----------------------------------------------------------------------------
    def works(self) -> list[WorkRecord]:
        """Every work in the store, by id."""
        return [reads.work_from_row(r) for r in self._conn.execute("SELECT * FROM works ORDER BY slug")]

    def _work(self, work: str | WorkRecord) -> tuple[int, WorkRecord]:
        slug = work.id if isinstance(work, WorkRecord) else work
        row = self._conn.execute("SELECT * FROM works WHERE slug = ?", (slug,)).fetchone()
        if row is None:
            known = [r[0] for r in self._conn.execute("SELECT slug FROM works ORDER BY slug")]
            raise NotFoundError(
                f"unknown work {slug!r} in canon store {self.path} (works: {listing(known)})"
                f"{did_you_mean(slug, known)}"
            )
        return int(row["id"]), reads.work_from_row(row)

    def work(self, work: str) -> WorkRecord:
        """One work by id; NotFoundError listing the store's works."""
        return self._work(work)[1]

    def counts(self, work: str) -> dict[str, int]:
        """How many characters, scenes, chunks, ... the work has."""
        wid, _ = self._work(work)
        tables = ("characters", "scenes", "chunks", "entities", "relations", "facts", "probes")
        sql = ", ".join(f"(SELECT COUNT(*) FROM {t} WHERE work_id = :w) AS {t}" for t in tables)
        row = self._conn.execute(f"SELECT {sql}, (SELECT COUNT(*) FROM messages m JOIN scenes s"
                                 " ON s.id = m.scene_id WHERE s.work_id = :w) AS messages", {"w": wid}).fetchone()
        return {k: int(row[k]) for k in row.keys()}

    def import_world(self, world: World, replace: bool = False, *, source: str | None = None) -> WorkRecord:
        """Import a whole work in one transaction (nothing is written if anything is wrong).

        ``replace`` overwrites an existing work of the same id (its vectors are dropped too).
        ``source`` (a file name) prefixes error messages.
        """
        importer.import_world(self._conn, world, replace=replace, source=source)
        self._cache.clear()
        return self.work(world.work.id)

    def export_world(self, work: str) -> World:
        """The work as interchange data; re-importing it gives the same store content."""
        wid, _ = self._work(work)
        return exporter.export_world(self._conn, wid)

    def delete_work(self, work: str) -> None:
        """Remove a work and everything in it."""
        wid, _ = self._work(work)
        with transaction(self._conn):
            self._conn.execute("DELETE FROM works WHERE id = ?", (wid,))
        self._cache.clear()

    # -- characters and positions ------------------------------------------------------------
    def set_time_points(self, work: str, character: str, points: list[TimePointRecord]) -> None:
        """Replace the time points of ``character`` (name or alias) with ``points``, in one
        transaction (the ``canon profiles`` command writes sheets built from witnessed scenes).
        Labels must be unique per character and the points in story order."""
        record = self.character(work, character)
        ordered = sorted(points, key=lambda tp: tp.position.key)
        labels = [norm(tp.label) for tp in ordered]
        if len(set(labels)) != len(labels):
            raise InputError(f"time points of {record.name!r}: duplicate label")
        axis = self.work(work).axis
        if any(tp.position.axis is not axis for tp in ordered):
            raise InputError(f"time points of {record.name!r}: a position not on the work's {axis} axis")
        with transaction(self._conn):
            self._conn.execute("DELETE FROM time_points WHERE character_id = ?", (record.row_id,))
            self._conn.executemany(
                "INSERT INTO time_points (character_id, norm, ord, label, pos_key, description, profile, personality)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                ((record.row_id, key, i, tp.label, tp.position.key, tp.description, tp.profile, tp.personality)
                 for i, (key, tp) in enumerate(zip(labels, ordered))))

    def characters(self, work: str) -> list[CharacterRecord]:
        """The work's characters, in import order."""
        wid, w = self._work(work)
        return reads.select_characters(self._conn, w.axis, "c.work_id = ?", [wid])

    def character(self, work: str, name_or_alias: str) -> CharacterRecord:
        """A character by canonical name or alias, case-insensitively."""
        wid, w = self._work(work)
        found = reads.select_characters(
            self._conn, w.axis,
            "c.id = (SELECT character_id FROM aliases WHERE work_id = ? AND norm = ?)",
            [wid, norm(name_or_alias)],
        )
        if not found:
            raise NotFoundError(self._unknown_character(w, name_or_alias))
        return found[0]

    def _unknown_character(self, w: WorkRecord, asked: str) -> str:
        """The error for a name no character has. The hint reveals nothing later: only the
        characters there from the story's first position, and only names in use from the start
        (no reader position is known here)."""
        everyone = self.characters(w.id)
        starts = [c.first_position for c in everyone if c.first_position is not None]
        first = min(starts, key=lambda p: p.key, default=None)
        shown = [c for c in everyone if c.first_position is None or first is None or c.first_position == first]
        names = [n for c in shown for n in (c.name, *(c.names_at(first) if first is not None else ()))]
        more = len(everyone) - len(shown)
        later = f"; {more} more appear later in the story" if more else ""
        return (f"unknown character {quoted(asked)} in work {w.id!r} (known from the start: "
                f"{listing(c.name for c in shown)}{later}){did_you_mean(asked, names)}")

    def resolve_position(
        self, work: str, text: str | Position, character: str | CharacterRecord | None = None
    ) -> Position:
        """A position string (``2-5``, ``2024-03-07``) or one of ``character``'s time-point
        labels ("end of book 1", any case) as a Position on the work's axis."""
        _, w = self._work(work)
        ch = self.character(work, character) if isinstance(character, str) else character
        if isinstance(text, str) and ch is not None:
            for tp in ch.time_points:
                if norm(tp.label) == norm(text):
                    return tp.position
        try:
            pos = Position.parse(text)
        except PositionTooLong:
            raise
        except InputError:
            forms = f"a position ({axis_forms(w.axis)})"
            if ch is None:
                raise NotFoundError(f"unknown story position {quoted(text)}: expected {forms}") from None
            # Positions only: a label may tell what happens there ("the night Ottilie died").
            points = ", ".join(str(tp.position) for tp in ch.time_points) or "none"
            raise NotFoundError(
                f"unknown story position {quoted(text)} for {ch.name}: expected a label of one of their "
                f"time points (at {points}; labels are not listed here, as they may tell what happens) or {forms}"
            ) from None
        if pos.axis is not w.axis:
            raise InputError(
                f"position {quoted(text)} is a {pos.axis} position but work {w.id!r} uses the "
                f"{w.axis} axis (expected {axis_forms(w.axis)})"
            )
        return pos

    # -- listings --------------------------------------------------------------------------
    def scenes(self, work: str) -> list[SceneRecord]:
        """Every scene of the work in story order."""
        wid, w = self._work(work)
        return reads.select_scenes(self._conn, w.axis, "s.work_id = ?", [wid])

    def scene(self, work: str, scene_id: str) -> SceneRecord:
        """One scene by id."""
        wid, w = self._work(work)
        found = reads.select_scenes(self._conn, w.axis, "s.work_id = ? AND s.ext_id = ?", [wid, scene_id])
        if not found:
            known = [r[0] for r in self._conn.execute("SELECT ext_id FROM scenes WHERE work_id = ? ORDER BY ord", (wid,))]
            raise NotFoundError(f"unknown scene {scene_id!r} in work {w.id!r} (known: {listing(known)})"
                                f"{did_you_mean(scene_id, known)}")
        return found[0]

    def messages(self, work: str, scene_id: str) -> list[MessageRecord]:
        """A scene's messages with every thought (the omniscient view; scopes filter)."""
        scene = self.scene(work, scene_id)
        return reads.select_messages(self._conn, scene.row_id, scene.id, all_thoughts=True)

    def chunks(self, work: str) -> list[ChunkRecord]:
        """Every chunk of the work in story order."""
        wid, w = self._work(work)
        return reads.select_chunks(self._conn, w.axis, "k.work_id = ?", [wid])

    def entities(self, work: str) -> list[EntityRecord]:
        """Every entity of the work, in import order."""
        wid, w = self._work(work)
        return reads.select_entities(self._conn, w.axis, "e.work_id = ?", [wid])

    def relations(self, work: str) -> list[RelationRecord]:
        """Every relation of the work, in import order."""
        wid, w = self._work(work)
        return reads.select_relations(self._conn, w.axis, "r.work_id = ?", [wid])

    def facts(self, work: str) -> list[FactRecord]:
        """Every fact of the work in story order."""
        wid, w = self._work(work)
        return reads.select_facts(self._conn, w.axis, "f.work_id = ?", [wid])

    def probes(self, work: str) -> list[ProbeRecord]:
        """The work's ground-truth probes."""
        wid, w = self._work(work)
        return reads.select_probes(self._conn, w.axis, wid)

    # -- scopes ----------------------------------------------------------------------------
    def scope(
        self,
        work: str,
        character: str | CharacterRecord | None,
        at: str | Position,
        *,
        witnessed_only: bool = False,
    ) -> KnowledgeScope:
        """What ``character`` (None: the omniscient reader) can know at ``at`` (a position or
        one of the character's time-point labels)."""
        wid, w = self._work(work)
        ch = self.character(work, character) if isinstance(character, str) else character
        pos = self.resolve_position(work, at, ch)
        return KnowledgeScope(self._conn, self._cache, wid, w, ch, pos, witnessed_only=witnessed_only)

    # -- vectors ---------------------------------------------------------------------------
    def put_vectors(
        self, work: str, kind: str, ids: Sequence[str], embedder_name: str, matrix: np.ndarray
    ) -> int:
        """Store one float32 vector per id (``kind``: chunk, scene, entity or fact; entity ids
        are names). Overwrites earlier vectors of the same ids; returns the count written."""
        wid, _ = self._work(work)
        return vectors.put_vectors(self._conn, wid, kind, ids, embedder_name, matrix)

    def vectors(
        self, work: str, kind: str, embedder_name: str, ids: Sequence[str] | None = None
    ) -> VectorSet:
        """Stored vectors, for ``ids`` in that order or for every embedded item."""
        wid, _ = self._work(work)
        return vectors.get_vectors(self._conn, wid, kind, embedder_name, ids)
