"""Write a validated ``World`` into the store: one transaction, all rows or none.

``validate.plan_import`` has already resolved every reference to an index into the plan's own
lists. Row ids are handed out here from each table's current maximum (the transaction holds the
write lock, so no one else can take them), which lets every table be written with one
``executemany`` instead of a round trip per row for ``lastrowid``.
"""

from __future__ import annotations

import datetime as _dt
import json
import sqlite3

from incanon.canon.schema import transaction
from incanon.canon.validate import Plan, Ref, plan_import
from incanon.canon.world import World
from incanon.errors import InputError


def _next_id(conn: sqlite3.Connection, table: str) -> int:
    return int(conn.execute(f"SELECT COALESCE(MAX(id), 0) + 1 FROM {table}").fetchone()[0])


def _split(ref: Ref, char_base: int, entity_base: int) -> tuple[int | None, int | None]:
    kind, idx = ref
    return (char_base + idx, None) if kind == "c" else (None, entity_base + idx)


def import_world(
    conn: sqlite3.Connection, world: World, *, replace: bool = False, source: str | None = None
) -> int:
    """Validate and insert ``world``; return the work's row id.

    Raises ``InputError`` for a bad reference or an existing work id without ``replace``;
    either way the store is left as it was.
    """
    plan = plan_import(world, source=source)
    slug = world.work.id
    with transaction(conn):
        row = conn.execute("SELECT id FROM works WHERE slug = ?", (slug,)).fetchone()
        if row is not None:
            if not replace:
                raise InputError(
                    f"work {slug!r} is already in the store; import with replace "
                    "(--fresh) to overwrite it",
                    source=source,
                )
            # Cascades to every row of the work, embeddings included: they were computed
            # from texts the new import may have changed.
            conn.execute("DELETE FROM works WHERE id = ?", (row[0],))
        return _write(conn, plan)


def _write(conn: sqlite3.Connection, plan: Plan) -> int:
    w = plan.world
    info = w.work
    cur = conn.execute(
        "INSERT INTO works (slug, title, author, axis, description, books, world_schema, imported_at, narrator)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            info.id,
            info.title,
            info.author,
            info.axis.value,
            info.description,
            json.dumps(info.books, ensure_ascii=False),
            w.schema_version,
            _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            plan.narrator,
        ),
    )
    work_id = int(cur.lastrowid or 0)
    cb, sb, kb, eb, fb = (
        _next_id(conn, t) for t in ("characters", "scenes", "chunks", "entities", "facts")
    )

    conn.executemany(
        "INSERT INTO characters (id, work_id, ord, name, profile, personality, first_key, card)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            (cb + i, work_id, i, ch.name, ch.profile, ch.personality, first,
             None if ch.card is None else json.dumps(ch.card, ensure_ascii=False))
            for i, (ch, first) in enumerate(zip(w.characters, plan.characters))
        ),
    )
    conn.executemany(
        "INSERT INTO aliases (work_id, norm, character_id, ord, alias, is_name, from_key)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        ((work_id, key, cb + c, j, alias, is_name, since) for c, j, alias, key, is_name, since in plan.names),
    )
    conn.executemany(
        "UPDATE aliases SET secret = ?, revealed_key = ? WHERE work_id = ? AND norm = ? AND character_id = ?",
        ((payload, revealed, work_id, key, cb + c) for c, key, payload, revealed in plan.secrets),
    )
    conn.executemany(
        "INSERT INTO time_points (character_id, norm, ord, label, pos_key, description, profile, personality)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        ((cb + c, *rest) for c, *rest in plan.time_points),
    )
    conn.executemany(
        "INSERT INTO persona_segments (character_id, kind, ord, from_key, text, tells) VALUES (?, ?, ?, ?, ?, ?)",
        ((cb + c, kind, j, since, text, json.dumps(tells) if tells else None)
         for c, kind, j, since, text, tells in plan.segments),
    )

    conn.executemany(
        "INSERT INTO scenes (id, work_id, ord, ext_id, pos_key, date, title, location, summary)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            (sb + i, work_id, i, sc.id, key, sc.date, sc.title, sc.location, sc.summary)
            for i, (sc, key) in enumerate(zip(w.scenes, plan.scenes))
        ),
    )
    conn.executemany(
        "INSERT INTO scene_participants (scene_id, character_id, present, spoke, present_ord, spoke_ord)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        ((sb + s, cb + c, pr, sp, po, so) for s, c, pr, sp, po, so in plan.participants),
    )
    conn.executemany(
        "INSERT INTO messages (scene_id, ord, speaker_id, speaker, speech, action, thought)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            (sb + s, j, None if c is None else cb + c, spk, speech, action, thought)
            for s, j, c, spk, speech, action, thought in plan.messages
        ),
    )

    conn.executemany(
        "INSERT INTO chunks (id, work_id, ord, ext_id, pos_key, text, source, scene_id, units)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            (kb + i, work_id, i, ck.id, key, ck.text, ck.source, None if s is None else sb + s, units)
            for i, (ck, (key, s), units) in enumerate(zip(w.chunks, plan.chunks, plan.chunk_units))
        ),
    )

    conn.executemany(
        "INSERT INTO entities (id, work_id, ord, name, norm, type, description, pos_key)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            (eb + i, work_id, i, en.name, key, en.type, en.description, pos)
            for i, (en, (key, pos)) in enumerate(zip(w.entities, plan.entities))
        ),
    )
    conn.executemany(
        "INSERT INTO entity_aliases (entity_id, ord, alias, norm) VALUES (?, ?, ?, ?)",
        ((eb + e, j, alias, key) for e, j, alias, key in plan.entity_aliases),
    )

    conn.executemany(
        "INSERT INTO relations (work_id, ord, source_character_id, source_entity_id,"
        " target_character_id, target_entity_id, type, description, affection, weight,"
        " from_key, to_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            (
                work_id, i, *_split(src, cb, eb), *_split(tgt, cb, eb), rel.type,
                rel.description, rel.affection, rel.weight, start, end,
            )
            for i, (rel, (src, tgt, start, end)) in enumerate(zip(w.relations, plan.relations))
        ),
    )

    conn.executemany(
        "INSERT INTO facts (id, work_id, ord, ext_id, subject_character_id, subject_entity_id,"
        " text, pos_key, to_key, scene_id, public) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            (
                fb + i, work_id, i, fact.id, *_split(subject, cb, eb), fact.text, key, end,
                None if s is None else sb + s, int(fact.public),
            )
            for i, (fact, (subject, key, end, s)) in enumerate(zip(w.facts, plan.facts))
        ),
    )
    conn.executemany(
        "INSERT INTO fact_known_by (fact_id, character_id, ord) VALUES (?, ?, ?)",
        ((fb + f, cb + c, j) for f, c, j in plan.known_by),
    )

    conn.executemany(
        "INSERT INTO probes (work_id, ord, character_id, at_key, question, data_type, event,"
        " gold_response) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            (work_id, i, cb + c, at, p.question, p.data_type, p.event, p.gold_response)
            for i, (p, (c, at)) in enumerate(zip(w.probes, plan.probes))
        ),
    )
    return work_id
