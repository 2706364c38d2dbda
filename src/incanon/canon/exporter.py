"""Read a work back out of the store as a ``World`` (the inverse of the importer).

Lists come back in import order and references by canonical name, so a world that already used
canonical names exports equal to what was imported, and any export re-imports to itself.
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict

from incanon.canon.perception import Unit, default_audience
from incanon.canon.position import Axis, Position
from incanon.canon.records import ChunkRecord
from incanon.canon.reads import (
    select_characters,
    select_chunks,
    select_entities,
    select_facts,
    select_probes,
    select_relations,
    select_scenes,
)
from incanon.canon.world import (
    Character,
    Chunk,
    ChunkUnit,
    Entity,
    Fact,
    Probe,
    Relation,
    Scene,
    SecretName,
    Segment,
    TimePoint,
    Utterance,
    WorkInfo,
    World,
)


def stated_units(chunk: ChunkRecord, axis: Axis, narrator: str | None) -> list[ChunkUnit]:
    """The units a world file stated for ``chunk`` (the default cut is made again on import);
    what the defaults would give again is left out, so a world exports as it was written."""
    if not chunk.units:
        return []
    out = []
    for d in json.loads(chunk.units):
        u = Unit.from_json(d)
        if u.given:
            audience = None if u.audience == default_audience(u.mode, narrator) else u.audience
            by = None if u.mode == "narration" and u.by == narrator else u.by
            out.append(ChunkUnit(text=chunk.text[u.start:u.end], mode=u.mode, by=by, audience=audience,
                                 known_by=list(u.known_by),
                                 **{"from": None if u.from_key is None else str(Position.from_key(axis, u.from_key))}))
    return out


def _chunk_narrator(chunk: ChunkRecord, narrator: str | None) -> str | None:
    """The chunk's own narrator (its default narration's teller), when not the work's."""
    for d in json.loads(chunk.units) if chunk.units else []:
        if d["mode"] == "narration" and not d.get("given") and d.get("to") == "private":
            return d.get("by") if d.get("by") != narrator else None
    return None


def _s(value: object | None) -> str | None:
    return None if value is None else str(value)


def export_world(conn: sqlite3.Connection, work_row_id: int) -> World:
    """The whole canon of one work as interchange data."""
    w = conn.execute("SELECT * FROM works WHERE id = ?", (work_row_id,)).fetchone()
    axis = Axis(w["axis"])
    params = (work_row_id,)

    messages: dict[int, list[Utterance]] = defaultdict(list)
    for m in conn.execute(
        "SELECT m.scene_id, m.speaker, m.speech, m.action, m.thought FROM messages m"
        " JOIN scenes s ON s.id = m.scene_id WHERE s.work_id = ? ORDER BY m.scene_id, m.ord",
        (work_row_id,),
    ):
        messages[m["scene_id"]].append(
            Utterance(speaker=m["speaker"], speech=m["speech"], action=m["action"], thought=m["thought"])
        )

    return World(
        schema_version=w["world_schema"],
        work=WorkInfo(
            id=w["slug"],
            title=w["title"],
            author=w["author"],
            axis=axis,
            description=w["description"],
            books=json.loads(w["books"]),
            narrator=w["narrator"],
        ),
        characters=[
            Character(
                name=c.name,
                aliases=list(c.aliases),
                alias_from={a: str(p) for a, p in zip(c.aliases, c.alias_from) if p is not None},
                secret_names={g.alias: SecretName(revealed_in=list(g.revealed_in), known_by=list(g.known_by))
                              for g in c.secret_names},
                profile=c.profile,
                personality=c.personality,
                profile_segments=[Segment(text=g.text, tells=list(g.tells), **{"from": _s(g.position)})
                                  for g in c.profile_segments],
                personality_segments=[Segment(text=g.text, tells=list(g.tells), **{"from": _s(g.position)})
                                      for g in c.personality_segments],
                first_position=_s(c.first_position),
                card=json.loads(c.card) if c.card else None,
                time_points=[
                    TimePoint(label=t.label, position=str(t.position), description=t.description,
                              profile=t.profile, personality=t.personality)
                    for t in c.time_points
                ],
            )
            for c in select_characters(conn, axis, "c.work_id = ?", params)
        ],
        chunks=[
            Chunk(id=k.id, position=str(k.position), text=k.text, source=k.source, scene=k.scene,
                  narrator=_chunk_narrator(k, w["narrator"]),
                  units=stated_units(k, axis, _chunk_narrator(k, w["narrator"]) or w["narrator"]))
            for k in select_chunks(conn, axis, "k.work_id = ?", params, order="k.ord")
        ],
        scenes=[
            Scene(
                id=s.id,
                position=str(s.position),
                date=s.date,
                title=s.title,
                location=s.location,
                summary=s.summary,
                participants=list(s.participants),
                speakers=list(s.speakers),
                messages=messages.get(s.row_id, []),
            )
            for s in select_scenes(conn, axis, "s.work_id = ?", params, order="s.ord")
        ],
        entities=[
            Entity(
                name=e.name,
                type=e.type,  # type: ignore[arg-type]
                description=e.description,
                aliases=list(e.aliases),
                position=_s(e.position),
            )
            for e in select_entities(conn, axis, "e.work_id = ?", params)
        ],
        relations=[
            Relation(
                source=r.source,
                target=r.target,
                type=r.type,
                description=r.description,
                affection=r.affection,  # type: ignore[arg-type]
                weight=r.weight,
                valid_from=_s(r.valid_from),
                valid_to=_s(r.valid_to),
            )
            for r in select_relations(conn, axis, "r.work_id = ?", params)
        ],
        facts=[
            Fact(
                id=f.id,
                subject=f.subject,
                text=f.text,
                position=str(f.position),
                valid_to=_s(f.valid_to),
                scene=f.scene,
                public=f.public,
                known_by=list(f.known_by),
            )
            for f in select_facts(conn, axis, "f.work_id = ?", params, order="f.ord")
        ],
        probes=[
            Probe(
                character=p.character,
                at=str(p.at),
                question=p.question,
                data_type=p.data_type,  # type: ignore[arg-type]
                event=p.event,
                gold_response=p.gold_response,
            )
            for p in select_probes(conn, axis, work_row_id)
        ],
    )
