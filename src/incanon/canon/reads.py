"""The SELECTs behind every read, shared by store lookups, knowledge scopes and export.

Each ``select_*`` takes a SQL condition (with ``?`` parameters) on the table's alias and an
ORDER BY, so the store and a scope ask the same query with different filters: the filtering is
SQL's (indexed), Python only turns the surviving rows into records. Lists that hang off a row
(participants, aliases, known_by) come back as one ``json_group_array`` per row, in import order.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from incanon.canon.position import Axis, Position
from incanon.canon.records import (
    CharacterRecord,
    SecretNameRecord,
    ChunkRecord,
    EntityRecord,
    FactRecord,
    MessageRecord,
    ProbeRecord,
    RelationRecord,
    SceneRecord,
    SegmentRecord,
    TimePointRecord,
    WorkRecord,
)

Params = Sequence[Any]


def _names(sql_from_where_order: str) -> str:
    """A subquery yielding a JSON array of the ``name`` column, in the inner ORDER BY's order."""
    return f"(SELECT json_group_array(name) FROM (SELECT {sql_from_where_order}))"


@lru_cache(maxsize=65536)
def position_of(axis: Axis, key: int) -> Position:
    """``Position.from_key``, memoised: a work has few distinct positions and many rows per
    position, and positions are immutable, so rows can share them."""
    return Position.from_key(axis, key)


def _pos(axis: Axis, key: int | None) -> Position | None:
    return None if key is None else position_of(axis, key)


def plain_rows(conn: sqlite3.Connection, sql: str, params: Params) -> list[tuple[Any, ...]]:
    """Rows as plain tuples: on the hot paths (50k chunks) ``sqlite3.Row`` lookups by name cost
    more than the query."""
    cur = conn.cursor()
    cur.row_factory = None
    return cur.execute(sql, params).fetchall()


def work_from_row(row: sqlite3.Row) -> WorkRecord:
    """A ``works`` row as a record."""
    return WorkRecord(
        id=row["slug"],
        title=row["title"],
        author=row["author"],
        axis=Axis(row["axis"]),
        description=row["description"],
        books=json.loads(row["books"]),
        narrator=row["narrator"] if "narrator" in row.keys() else None,
    )


_CHARACTERS = f"""
SELECT c.id, c.name, c.profile, c.personality, c.first_key, c.card,
  {_names("alias AS name FROM aliases a WHERE a.character_id = c.id AND NOT a.is_name ORDER BY a.ord")}
    AS aliases,
  (SELECT json_group_array(from_key) FROM (SELECT from_key FROM aliases a
     WHERE a.character_id = c.id AND NOT a.is_name ORDER BY a.ord)) AS alias_from,
  (SELECT json_group_array(json_array(alias, secret, revealed_key)) FROM (SELECT alias, secret, revealed_key
     FROM aliases a WHERE a.character_id = c.id AND a.secret IS NOT NULL ORDER BY a.ord)) AS secrets,
  (SELECT json_group_array(json_array(label, pos_key, description, profile, personality)) FROM
    (SELECT label, pos_key, description, profile, personality FROM time_points t WHERE t.character_id = c.id
     ORDER BY t.ord)) AS time_points,
  (SELECT json_group_array(json_array(kind, from_key, text, tells)) FROM
    (SELECT kind, from_key, text, tells FROM persona_segments g WHERE g.character_id = c.id
     ORDER BY g.kind, g.ord)) AS segments
FROM characters c
"""


def select_characters(conn: sqlite3.Connection, axis: Axis, where: str, params: Params) -> list[CharacterRecord]:
    """Characters matching ``where`` (alias ``c``), in import order."""
    rows = conn.execute(f"{_CHARACTERS} WHERE {where} ORDER BY c.ord", params).fetchall()
    return [
        CharacterRecord(
            name=r["name"],
            aliases=tuple(json.loads(r["aliases"])),
            profile=r["profile"],
            personality=r["personality"],
            first_position=_pos(axis, r["first_key"]),
            time_points=tuple(
                TimePointRecord(label, position_of(axis, key), desc, profile, personality)
                for label, key, desc, profile, personality in json.loads(r["time_points"])
            ),
            alias_from=_starts(axis, json.loads(r["alias_from"])),
            profile_segments=_segments(axis, r["segments"], "profile"),
            personality_segments=_segments(axis, r["segments"], "personality"),
            secret_names=_secrets(axis, r["secrets"]),
            card=r["card"] or "",
            row_id=r["id"],
        )
        for r in rows
    ]


def _starts(axis: Axis, keys: list[int | None]) -> tuple[Position | None, ...]:
    # No dated alias at all: an empty tuple says "every alias from the start" cheaply.
    return tuple(_pos(axis, k) for k in keys) if any(k is not None for k in keys) else ()


def _secrets(axis: Axis, raw: str) -> tuple[SecretNameRecord, ...]:
    out = []
    for alias, payload, key in json.loads(raw):
        data = json.loads(payload)
        out.append(SecretNameRecord(alias, tuple(data.get("revealed_in", ())), _pos(axis, key),
                                    tuple(data.get("known_by", ()))))
    return tuple(out)


def _segments(axis: Axis, raw: str, kind: str) -> tuple[SegmentRecord, ...]:
    return tuple(SegmentRecord(text, _pos(axis, key), tuple(json.loads(tells) if tells else ()))
                 for k, key, text, tells in json.loads(raw) if k == kind)


_SCENES = f"""
SELECT s.id, s.ext_id, s.pos_key, s.date, s.title, s.location, s.summary,
  {_names("c.name FROM scene_participants p JOIN characters c ON c.id = p.character_id "
          "WHERE p.scene_id = s.id AND p.present ORDER BY p.present_ord")} AS participants,
  {_names("c.name FROM scene_participants p JOIN characters c ON c.id = p.character_id "
          "WHERE p.scene_id = s.id AND p.spoke ORDER BY p.spoke_ord")} AS speakers
FROM scenes s
"""


def select_scenes(
    conn: sqlite3.Connection, axis: Axis, where: str, params: Params, order: str = "s.pos_key, s.ord"
) -> list[SceneRecord]:
    """Scenes matching ``where`` (alias ``s``)."""
    rows = plain_rows(conn, f"{_SCENES} WHERE {where} ORDER BY {order}", params)
    return [
        SceneRecord(
            ext_id, position_of(axis, key), date, title, location, summary,
            tuple(json.loads(participants)), tuple(json.loads(speakers)), row_id,
        )
        for row_id, ext_id, key, date, title, location, summary, participants, speakers in rows
    ]


def select_messages(
    conn: sqlite3.Connection,
    scene_row_id: int,
    scene_id: str,
    *,
    thoughts_of: int | None = None,
    all_thoughts: bool = False,
) -> list[MessageRecord]:
    """A scene's messages in order.

    Thoughts are inner: only ``thoughts_of`` (a character row id) keeps its own, unless
    ``all_thoughts`` (the omniscient reader, an export).
    """
    rows = conn.execute(
        "SELECT ord, speaker_id, speaker, speech, action, thought FROM messages"
        " WHERE scene_id = ? ORDER BY ord",
        (scene_row_id,),
    ).fetchall()
    return [
        MessageRecord(
            scene=scene_id,
            order=r["ord"],
            speaker=r["speaker"],
            speech=r["speech"],
            action=r["action"],
            thought=r["thought"]
            if all_thoughts or (thoughts_of is not None and r["speaker_id"] == thoughts_of)
            else "",
        )
        for r in rows
    ]


_CHUNKS = """
SELECT k.id, k.ext_id, k.pos_key, k.text, k.source, s.ext_id AS scene, k.units
FROM chunks k LEFT JOIN scenes s ON s.id = k.scene_id
"""


def select_chunks(
    conn: sqlite3.Connection, axis: Axis, where: str, params: Params, order: str = "k.pos_key, k.ord"
) -> list[ChunkRecord]:
    """Chunks matching ``where`` (alias ``k``)."""
    rows = plain_rows(conn, f"{_CHUNKS} WHERE {where} ORDER BY {order}", params)
    return [
        ChunkRecord(ext_id, position_of(axis, key), text, source, scene, row_id, units)
        for row_id, ext_id, key, text, source, scene, units in rows
    ]


_ENTITIES = f"""
SELECT e.id, e.name, e.type, e.description, e.pos_key,
  {_names("alias AS name FROM entity_aliases a WHERE a.entity_id = e.id ORDER BY a.ord")} AS aliases
FROM entities e
"""


def select_entities(
    conn: sqlite3.Connection, axis: Axis, where: str, params: Params, order: str = "e.ord"
) -> list[EntityRecord]:
    """Entities matching ``where`` (alias ``e``)."""
    rows = plain_rows(conn, f"{_ENTITIES} WHERE {where} ORDER BY {order}", params)
    return [
        EntityRecord(name, type_, desc, tuple(json.loads(aliases)), _pos(axis, key), row_id)
        for row_id, name, type_, desc, key, aliases in rows
    ]


_RELATIONS = """
SELECT COALESCE(sc.name, se.name) AS source, COALESCE(tc.name, te.name) AS target,
  r.type, r.description, r.affection, r.weight, r.from_key, r.to_key
FROM relations r
LEFT JOIN characters sc ON sc.id = r.source_character_id
LEFT JOIN entities se ON se.id = r.source_entity_id
LEFT JOIN characters tc ON tc.id = r.target_character_id
LEFT JOIN entities te ON te.id = r.target_entity_id
"""


def select_relations(conn: sqlite3.Connection, axis: Axis, where: str, params: Params) -> list[RelationRecord]:
    """Relations matching ``where`` (alias ``r``), in import order."""
    rows = plain_rows(conn, f"{_RELATIONS} WHERE {where} ORDER BY r.ord", params)
    return [
        RelationRecord(src, tgt, type_, desc, aff, weight, _pos(axis, start), _pos(axis, end))
        for src, tgt, type_, desc, aff, weight, start, end in rows
    ]


_FACTS = f"""
SELECT f.ext_id, COALESCE(c.name, e.name) AS subject, f.text, f.pos_key, f.to_key,
  s.ext_id AS scene, f.public,
  {_names("c2.name FROM fact_known_by kb JOIN characters c2 ON c2.id = kb.character_id "
          "WHERE kb.fact_id = f.id ORDER BY kb.ord")} AS known_by
FROM facts f
LEFT JOIN characters c ON c.id = f.subject_character_id
LEFT JOIN entities e ON e.id = f.subject_entity_id
LEFT JOIN scenes s ON s.id = f.scene_id
"""


def select_facts(
    conn: sqlite3.Connection, axis: Axis, where: str, params: Params, order: str = "f.pos_key, f.ord"
) -> list[FactRecord]:
    """Facts matching ``where`` (alias ``f``)."""
    rows = plain_rows(conn, f"{_FACTS} WHERE {where} ORDER BY {order}", params)
    return [
        FactRecord(
            ext_id, subject, text, position_of(axis, key), _pos(axis, end), scene, bool(public),
            tuple(json.loads(known_by)),
        )
        for ext_id, subject, text, key, end, scene, public, known_by in rows
    ]


def select_probes(conn: sqlite3.Connection, axis: Axis, work_row_id: int) -> list[ProbeRecord]:
    """A work's probes in import order."""
    rows = conn.execute(
        "SELECT c.name, p.at_key, p.question, p.data_type, p.event, p.gold_response FROM probes p"
        " JOIN characters c ON c.id = p.character_id WHERE p.work_id = ? ORDER BY p.ord",
        (work_row_id,),
    ).fetchall()
    return [
        ProbeRecord(r["name"], position_of(axis, r["at_key"]), r["question"], r["data_type"], r["event"], r["gold_response"])
        for r in rows
    ]
