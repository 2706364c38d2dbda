"""The knowledge scope: what one character can know at one story position.

A scope is the single filter every benchmark and retriever goes through (TimeChara's RAG-cutoff,
RoleRAG's graph retrieval, DialSim's answerability, CoSER's "no future information"). What a
character may know is decided in one place, :class:`incanon.canon.knows.CharacterKnowledge`
(``knowledge()``); a scope answers listings and searches through it, or through a fast path that
evaluates the same rule over columns:

* **time**: anything at a position ``<= at`` is past (an event in chapter 2-5 is known to a
  character at 2-5); later is future and never visible.
* **perception**: a character witnesses the scenes they are present at, and of a chunk knows
  only the units it perceived (``CharacterKnowledge.chunk_view``: speech heard and deeds seen
  there, its own thoughts, letters it read; a first-person narrator's narration is the
  narrator's alone). With ``witnessed_only``, chunks come back as perceived, and a chunk perceived
  in nothing is hidden (``_chunk_cond`` in SQL, ``chunk_order.search_ordered`` in numpy);
  messages of a missed scene are never returned; nobody sees another character's ``[thought]``.
* **facts**: known when past, not expired (``at < valid_to``), and public, or established in a
  scene the character witnessed, or listed in ``known_by`` (``fact_table`` in numpy lists and
  counts them; ``_fact_cond`` states the same rule in SQL, which the property test holds equal).
* **relations** and **entities**: SQL keeps the candidates (a relation in force with both ends
  introduced; an entity introduced by then), and for a character the knowledge object decides
  which of them it knows (``relations()``, ``entities()``); ``relations_in_force()`` is the world
  as it stands, the omniscient reader's view.

``character=None`` is the omniscient reader: the time filter alone (every scene counts as
witnessed, every thought is visible).
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from typing import TYPE_CHECKING, Any

import numpy as np

from incanon.canon.names import did_you_mean, listing
from incanon.canon.position import Position
from incanon.canon.reads import (
    plain_rows,
    select_chunks,
    select_entities,
    select_facts,
    select_messages,
    select_relations,
    select_scenes,
)
from incanon.canon.records import (
    CharacterRecord,
    ChunkRecord,
    EntityRecord,
    FactRecord,
    Hit,
    MessageRecord,
    RelationRecord,
    SceneRecord,
    WorkRecord,
)
from incanon.canon.chunk_order import load_ordered, search_ordered
from incanon.canon.scope_summary import summarize
from incanon.canon.fact_table import facts_in_scope, load_facts
from incanon.canon.vectors import VectorCache, VectorKind, _set_row, search
from incanon.errors import InputError, NotFoundError

if TYPE_CHECKING:
    from incanon.canon.knows import CharacterKnowledge, Placed

Cond = tuple[str, list[Any]]

# Row ids of the scenes the character was present at, up to the scope's position.
_WITNESSED = (
    "SELECT p.scene_id FROM scene_participants p JOIN scenes ws ON ws.id = p.scene_id"
    " WHERE p.character_id = ? AND p.present AND ws.pos_key <= ?"
)
_PRESENT = (
    "EXISTS (SELECT 1 FROM scene_participants p"
    " WHERE p.scene_id = s.id AND p.character_id = ? AND p.present)"
)


IN_SCOPE = "in scope"
"""Before now, and witnessed (or tied to no scene): the character can know it."""
NOT_WITNESSED = "before now, not witnessed"
"""Before now, from a scene the character missed."""
AFTER_NOW = "after now"
"""Later in the story."""


class KnowledgeScope:
    """What ``character`` (None: the omniscient reader) can know at ``at`` in one work."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        cache: VectorCache,
        work_row_id: int,
        work: WorkRecord,
        character: CharacterRecord | None,
        at: Position,
        *,
        witnessed_only: bool = False,
    ):
        if at.axis is not work.axis:
            raise InputError(f"position {str(at)!r} is not on work {work.id!r}'s {work.axis} axis")
        self._conn = conn
        self._cache = cache
        self._wid = work_row_id
        self.work = work
        """The work."""
        self.character = character
        """The character whose knowledge this is; None for the omniscient reader."""
        self.at = at
        """The story position the character is at."""
        self.witnessed_only = witnessed_only
        """Default for scenes/chunks: only what the character witnessed (plus untied chunks)."""
        self._cid = character.row_id if character is not None else None
        self._at = at.key

    def witnessed_view(self) -> "KnowledgeScope":
        """The same scope kept to the scenes the character witnessed (itself if it already is)."""
        if self.witnessed_only:
            return self
        return KnowledgeScope(self._conn, self._cache, self._wid, self.work, self.character, self.at,
                              witnessed_only=True)

    def label(self, position: Position | str, scene: str | None = None, *, chunk: str | None = None) -> str:
        """How a piece of canon at ``position`` (tied to ``scene``, if any; the chunk ``chunk``,
        if given) stands for the character: ``in scope`` (before now and witnessed, or tied to no
        scene; of a chunk, something of it perceived), ``before now, not witnessed`` or ``after now``."""
        if not self.is_known_time(position):
            return AFTER_NOW
        if self.character is None:
            return IN_SCOPE
        knows = self.knowledge()
        if chunk is not None:
            return IN_SCOPE if knows.perceived(chunk) else NOT_WITNESSED
        if scene is not None and not knows.may_know_scene(scene):
            return NOT_WITNESSED
        return IN_SCOPE

    def allows_chunk(self, chunk: "Placed") -> bool:
        """True when this scope lets ``chunk`` (anything with a ``position`` and a ``scene``)
        through: when it keeps to witnessed scenes, what the character may read
        (``CharacterKnowledge.may_know_chunk``); else at or before the position."""
        if self._wo(None):
            return self.knowledge().may_know_chunk(chunk)
        return self.is_known_time(chunk.position)

    def knowledge(self) -> "CharacterKnowledge":
        """What the scope's character may know at its position: the one decision point (kept
        until the store changes). InputError for the omniscient reader, who has only the time
        filter."""
        from incanon.canon.knows import knowledge_of  # built on the scope: imported late

        return knowledge_of(self)

    # -- conditions (SQL text, parameters) ---------------------------------------------------
    def _wo(self, witnessed_only: bool | None) -> bool:
        chosen = self.witnessed_only if witnessed_only is None else witnessed_only
        return chosen and self._cid is not None

    def _scene_cond(self, witnessed_only: bool | None) -> Cond:
        sql, params = "s.work_id = ? AND s.pos_key <= ?", [self._wid, self._at]
        if self._wo(witnessed_only):
            sql += f" AND {_PRESENT}"
            params.append(self._cid)
        return sql, params

    def _chunk_cond(self, witnessed_only: bool | None) -> Cond:
        sql, params = "k.work_id = ? AND k.pos_key <= ?", [self._wid, self._at]
        if self._wo(witnessed_only):
            # Which chunks the character perceived anything of is the knowledge's decision
            # (units, not whole scenes); SQL only keeps those rows.
            sql += " AND k.id IN (SELECT value FROM json_each(?))"
            params.append(json.dumps(self.knowledge().perceived_rows.tolist()))
        return sql, params

    def _fact_cond(self, include_expired: bool) -> Cond:
        sql, params = "f.work_id = ? AND f.pos_key <= ?", [self._wid, self._at]
        if not include_expired:
            sql += " AND (f.to_key IS NULL OR ? < f.to_key)"
            params.append(self._at)
        if self._cid is not None:
            sql += (
                f" AND (f.public OR f.scene_id IN ({_WITNESSED}) OR EXISTS (SELECT 1 FROM"
                " fact_known_by kb WHERE kb.fact_id = f.id AND kb.character_id = ?))"
            )
            params += [self._cid, self._at, self._cid]
        return sql, params

    def _entity_cond(self) -> Cond:
        return "e.work_id = ? AND (e.pos_key IS NULL OR e.pos_key <= ?)", [self._wid, self._at]

    def _relation_cond(self, current_only: bool) -> Cond:
        # An endpoint not yet introduced (first position after ``at``) hides the relation.
        sql = (
            "r.work_id = ? AND (r.from_key IS NULL OR r.from_key <= ?)"
            " AND COALESCE(sc.first_key, se.pos_key, -1) <= ?"
            " AND COALESCE(tc.first_key, te.pos_key, -1) <= ?"
        )
        params = [self._wid, self._at, self._at, self._at]
        if current_only:
            sql += " AND (r.to_key IS NULL OR ? < r.to_key)"
            params.append(self._at)
        return sql, params

    def _count(self, table: str, cond: Cond) -> int:
        return int(self._conn.execute(f"SELECT COUNT(*) FROM {table} WHERE {cond[0]}", cond[1]).fetchone()[0])

    # -- time and witnessing ---------------------------------------------------------------
    def _position(self, pos: Position | str) -> Position:
        p = Position.parse(pos)
        if p.axis is not self.work.axis:
            raise InputError(f"position {str(p)!r} is not on work {self.work.id!r}'s {self.work.axis} axis")
        return p

    def is_known_time(self, pos: Position | str) -> bool:
        """True when ``pos`` is at or before the scope's position (past, not future)."""
        return self._position(pos) <= self.at

    def _scene_row(self, scene_id: str) -> sqlite3.Row:
        row = self._conn.execute(
            "SELECT id, pos_key FROM scenes WHERE work_id = ? AND ext_id = ?", (self._wid, scene_id)
        ).fetchone()
        if row is None:
            known = [r[0] for r in self._conn.execute(
                "SELECT ext_id FROM scenes WHERE work_id = ? ORDER BY ord", (self._wid,))]
            raise NotFoundError(
                f"unknown scene {scene_id!r} in work {self.work.id!r} (known: {listing(known)})"
                f"{did_you_mean(scene_id, known)}"
            )
        return row

    def witnessed(self, scene_id: str) -> bool:
        """True when the scene is past and the character was present (always, if omniscient)."""
        row = self._scene_row(scene_id)
        if row["pos_key"] > self._at:
            return False
        if self._cid is None:
            return True
        return self._conn.execute(
            "SELECT 1 FROM scene_participants WHERE scene_id = ? AND character_id = ? AND present",
            (row["id"], self._cid),
        ).fetchone() is not None

    # -- scenes and text -------------------------------------------------------------------
    def scenes(self, witnessed_only: bool | None = None) -> list[SceneRecord]:
        """Scenes at or before the position (only witnessed ones if ``witnessed_only``). A scene's
        summary is the narrator's telling of it: in a first-person work only the narrator has
        it (the others' scenes come with no summary), as with the narration itself."""
        sql, params = self._scene_cond(witnessed_only)
        found = select_scenes(self._conn, self.work.axis, sql, params)
        narrator = self.work.narrator
        if narrator is None or self.character is None or self.character.name == narrator:
            return found
        return [dataclasses.replace(s, summary="") if s.summary else s for s in found]

    def future_scenes(self) -> list[SceneRecord]:
        """Scenes after the position: what the character must not know yet."""
        return select_scenes(self._conn, self.work.axis, "s.work_id = ? AND s.pos_key > ?", [self._wid, self._at])

    def missed_scenes(self) -> list[SceneRecord]:
        """Past scenes the character was not at (none for the omniscient reader)."""
        if self._cid is None:
            return []
        sql = f"s.work_id = ? AND s.pos_key <= ? AND NOT {_PRESENT}"
        return select_scenes(self._conn, self.work.axis, sql, [self._wid, self._at, self._cid])

    def messages(self, scene_id: str) -> list[MessageRecord]:
        """A witnessed scene's messages with only the character's own thoughts; [] if not witnessed."""
        if not self.witnessed(scene_id):
            return []
        row = self._scene_row(scene_id)
        return select_messages(
            self._conn, row["id"], scene_id, thoughts_of=self._cid, all_thoughts=self._cid is None
        )

    def chunks(self, witnessed_only: bool | None = None) -> list[ChunkRecord]:
        """Chunks at or before the position; with ``witnessed_only``, only what the character
        perceived: each chunk's text is the part it perceived (its units: speech heard, deeds
        seen, its own thoughts, letters read), and a chunk it perceived nothing of is left out."""
        sql, params = self._chunk_cond(witnessed_only)
        found = select_chunks(self._conn, self.work.axis, sql, params)
        return self._perceived(found) if self._wo(witnessed_only) else found

    def _perceived(self, chunks: list[ChunkRecord]) -> list[ChunkRecord]:
        views = self.knowledge().chunk_views
        return [c if views[c.row_id] == c.text else dataclasses.replace(c, text=views[c.row_id])
                for c in chunks if c.row_id in views]

    def chunk_ids(self, witnessed_only: bool | None = None) -> list[str]:
        """Ids of ``chunks()``, without reading their text."""
        sql, params = self._chunk_cond(witnessed_only)
        rows = plain_rows(self._conn, f"SELECT k.ext_id FROM chunks k WHERE {sql} ORDER BY k.pos_key, k.ord", params)
        return [r[0] for r in rows]

    # -- knowledge graph -------------------------------------------------------------------
    def entities(self) -> list[EntityRecord]:
        """Entities the character knows of at the position (``CharacterKnowledge.may_know_entity``);
        for the omniscient reader, every entity introduced by then (or with no position)."""
        if self.character is not None:
            return self.knowledge().entities()
        sql, params = self._entity_cond()
        return select_entities(self._conn, self.work.axis, sql, params)

    def relations(self, current_only: bool = True) -> list[RelationRecord]:
        """Relations the character can know at the position (``CharacterKnowledge.may_know_relation``);
        for the omniscient reader, ``relations_in_force``. ``current_only=False``: ended ones too."""
        if self.character is not None:
            return self.knowledge().relations(include_ended=not current_only)
        return self.relations_in_force(current_only)

    def relations_in_force(self, current_only: bool = True) -> list[RelationRecord]:
        """The world's relations true at the position with both ends introduced, whoever knows
        them (``current_only=False``: every one begun by then): the candidates a character's
        knowledge picks from, and the omniscient reader's view. Not what the character knows."""
        sql, params = self._relation_cond(current_only)
        return select_relations(self._conn, self.work.axis, sql, params)

    def facts(self, include_expired: bool = False) -> list[FactRecord]:
        """Facts the character knows at the position (see the module docstring for the rule);
        evaluated over the work's facts held as columns (:mod:`incanon.canon.fact_table`)."""
        return facts_in_scope(*self._fact_args(include_expired))

    def _fact_args(self, include_expired: bool) -> tuple[Any, int, bool, int | None, np.ndarray | None]:
        table = load_facts(self._conn, self._cache, self._wid, self.work.axis)
        witnessed = self.knowledge().witnessed_rows if self._cid is not None else None
        return table, self._at, include_expired, self._cid, witnessed

    # -- vector search ---------------------------------------------------------------------
    def search_chunks(
        self, query_vec: np.ndarray, embedder_name: str, k: int = 5, witnessed_only: bool | None = None
    ) -> list[Hit[ChunkRecord]]:
        """Top-``k`` chunks by cosine similarity among the chunks this scope allows (the set in
        story order: the scope is a prefix, the witnessed filter a set test; see ``chunk_order``)."""
        info = _set_row(self._conn, self._wid, VectorKind.CHUNK, embedder_name)
        if np.asarray(query_vec).reshape(-1).shape[0] != info["dim"]:
            raise InputError(f"query vector has {np.asarray(query_vec).size} dimensions, the {embedder_name!r} set "
                             f"has {info['dim']}")
        perceived = self.knowledge().perceived_rows if self._wo(witnessed_only) else None
        ordered = load_ordered(self._conn, self._cache, info, self._wid)
        hits = search_ordered(ordered, query_vec, k, self._at, perceived=perceived)
        ids = [rid for rid, _ in hits]
        rows = select_chunks(self._conn, self.work.axis, f"k.id IN ({','.join('?' * len(ids))})", ids)
        found = {r.row_id: r for r in (self._perceived(rows) if perceived is not None else rows)}
        return [Hit(found[rid], score) for rid, score in hits if rid in found]

    def search_entities(self, query_vec: np.ndarray, embedder_name: str, k: int = 5) -> list[Hit[EntityRecord]]:
        """Top-``k`` entities by cosine similarity among the entities this scope allows
        (``entities()``: for a character, those it knows of)."""
        if self.character is not None:
            allowed = json.dumps([e.row_id for e in self.knowledge().entities()])
            candidates, params = "SELECT value AS id FROM json_each(?)", [allowed]
        else:
            sql, params = self._entity_cond()
            candidates = f"SELECT e.id FROM entities e WHERE {sql}"
        hits = search(self._conn, self._cache, self._wid, VectorKind.ENTITY, embedder_name, query_vec, k,
                      candidates, params)
        ids = [rid for rid, _ in hits]
        found = {r.row_id: r for r in select_entities(
            self._conn, self.work.axis, f"e.id IN ({','.join('?' * len(ids))})", ids)}
        return [Hit(found[rid], score) for rid, score in hits]

    # -- summary ---------------------------------------------------------------------------
    def describe(self) -> dict[str, Any]:
        """A small JSON-able summary: who, when, and how much is visible or hidden.

        The counts are kept per scope until the store's data version moves on: a chat reply
        carries this summary, and its ~14 counts were a large part of a reply's CPU."""
        key = (self._wid, self._cid, self._at, self.witnessed_only)
        stamp = (int(self._conn.execute("PRAGMA data_version").fetchone()[0]), self._conn.total_changes)
        known = self._cache.summaries.get(key)
        if known is None or known[0] != stamp:
            if len(self._cache.summaries) >= 1024:  # scopes of many positions: keep it bounded
                self._cache.summaries.clear()
            known = self._cache.summaries[key] = (stamp, summarize(self))
        summary = known[1]  # a copy out: callers may change theirs
        return {**summary, "visible": dict(summary["visible"]), "hidden": dict(summary["hidden"])}
