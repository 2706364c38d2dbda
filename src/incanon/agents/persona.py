"""Build a ``CharacterAt`` from the canon store: who the agent plays, and when."""

from __future__ import annotations

from incanon.agents.base import CharacterAt
from incanon.canon.position import Position
from incanon.canon.store import CanonStore


def character_at(store: CanonStore, work: str, character: str, at: str | Position) -> CharacterAt:
    """The character ``character`` (name or alias) of ``work`` at ``at`` (position or time-point
    label), with its knowledge scope. Unknown names and positions raise ``NotFoundError``."""
    record = store.character(work, character)
    info = store.work(work)
    position = store.resolve_position(work, at, record)
    label, description = "", ""
    for tp in record.time_points:
        if tp.position == position:
            label, description = tp.label, tp.description
            break
    return CharacterAt(
        work_title=info.title,
        author=info.author,
        character=record.name,
        aliases=list(record.aliases),
        profile=record.profile,
        personality=record.personality,
        position=position,
        time_label=label,
        time_description=description,
        scope=store.scope(work, record, position),
    )
