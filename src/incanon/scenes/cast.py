"""The characters of a scene, each built by the one scoped builder, and how each names the others.

A ``Member`` is a character at the scene's position: its ``CharacterAt`` comes from
``incanon.agents.persona.character_at`` (names in use, profile and personality as of the
position, its knowledge scope) and its ``Horizon`` is the same one the builder and the audit read.

How one character names another is knowledge too: a public name (never a secret name) that the
listener has come across by the position (witnessed scenes, told facts, its own relations), or
one that was said in the scene while it listened. Someone it has no name for is a stranger.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from incanon.agents.base import CharacterAt
from incanon.agents.persona import character_at
from incanon.canon.horizon import Horizon
from incanon.canon.names import listing, norm
from incanon.canon.persona import horizon_at
from incanon.canon.position import Axis, Position
from incanon.canon.records import CharacterRecord, SceneRecord
from incanon.canon.store import CanonStore
from incanon.errors import InputError, NotFoundError
from incanon.logs import NOTICE
from incanon.scenes.record import MAX_CAST, MIN_CAST

log = logging.getLogger(__name__)

STRANGER = "Stranger"
"""How a character is shown someone it has no name for (numbered when there are several);
the scene template explains the word to the character."""


@dataclass(frozen=True)
class Member:
    """One character of the scene at the scene's position."""

    record: CharacterRecord
    who: CharacterAt
    """From the one scoped builder, with the character's knowledge scope."""
    horizon: Horizon
    """What the character has and has not come across at the position."""

    @property
    def name(self) -> str:
        """The canonical name."""
        return self.record.name


def build_member(store: CanonStore, work: str, name: str, position: Position,
                 notes: list[str] | None = None) -> Member:
    """``name`` (name or alias) at ``position``, through the scoped builder (what it withheld
    goes to ``notes`` when given, else to the log)."""
    record = store.character(work, name)
    who = character_at(store, work, record.name, position, notes=notes)
    return Member(record=record, who=who, horizon=horizon_at(store, work, record, who.position))


def build_members(store: CanonStore, work: str, names: Sequence[str], position: Position) -> dict[str, Member]:
    """Each of ``names`` at ``position`` (:func:`build_member`), by canonical name. What the
    builder withheld from whole-story text is said in one line for the whole cast: a scene's
    ``/at`` or ``/enter`` printed a note per character and field before (two to five lines)."""
    notes: list[str] = []
    members = {m.name: m for m in (build_member(store, work, name, position, notes) for name in names)}
    if notes:
        log.log(NOTICE, "note: at %s, %s", position, " | ".join(notes))
    return members


def resolve_cast(store: CanonStore, work: str, names: Sequence[str]) -> list[CharacterRecord]:
    """The characters ``names`` name (each once), checked against the scene's size."""
    records: list[CharacterRecord] = []
    for name in names:
        record = store.character(work, name.strip())
        if record.name in {r.name for r in records}:
            raise InputError(f"{record.name} is named twice in the scene's characters")
        records.append(record)
    if not MIN_CAST <= len(records) <= MAX_CAST:
        raise InputError(f"a scene has {MIN_CAST} to {MAX_CAST} characters, got {len(records)} "
                         f"({listing(r.name for r in records)})")
    return records


def resolve_position(store: CanonStore, work: str, at: str, records: Sequence[CharacterRecord]) -> Position:
    """``at`` as a position of ``work``: a position, or a time-point label of one of the cast
    (labels are a character's own; the first of the cast that has it wins)."""
    for record in records:
        if any(norm(tp.label) == norm(at) for tp in record.time_points):
            return store.resolve_position(work, at, record)
    try:
        position = store.resolve_position(work, at)
    except NotFoundError:
        raise NotFoundError(f"unknown story position {at!r}: expected a position (such as 1-2 or 1-2-1) or a "
                            "time-point label of one of the scene's characters") from None
    check_within_story(store, work, at, position)
    return position


def story_end(store: CanonStore, work: str) -> Position | None:
    """The last position the work's canon knows (scenes, chunks, characters' time points)."""
    ends = [s.position for s in store.scenes(work)]
    ends += [c.position for c in store.chunks(work) if c.position is not None]
    ends += [tp.position for c in store.characters(work) for tp in c.time_points]
    return max(ends, default=None)


def check_within_story(store: CanonStore, work: str, at: str, position: Position) -> None:
    """``NotFoundError`` when ``position`` lies past the end of the story at the depth it was
    written ("9-9" when the story ends in 3-4; "3" is the end of book 3, inside)."""
    last = story_end(store, work)
    if last is None or position.axis != last.axis:
        return
    if position.axis is Axis.DATE:
        past = position > last
    else:
        given = [p for p in (position.book, position.chapter, position.scene) if p is not None]
        cut = [p for p in (last.book, last.chapter, last.scene)[: len(given)] if p is not None]
        past = given > cut
    if past:
        raise NotFoundError(f"{at!r} is after the end of the story (its last position is {last})")


def setting_scene(store: CanonStore, work: str, setting: str, position: Position | None) -> SceneRecord:
    """The book's scene ``setting`` as the scene's place; it may not lie after ``position``."""
    found = store.scene(work, setting)
    if position is not None and found.position > position:
        raise InputError(f"the setting {setting!r} lies after the scene's position {position}: "
                         "set the scene at or after its setting")
    return found


def _said(name: str, told: str) -> bool:
    return bool(re.search(rf"(?<!\w){re.escape(name.casefold())}(?!\w)", told))


def public_names(record: CharacterRecord, at: Position) -> list[str]:
    """The names ``record`` goes by at ``at`` that anyone may hear: the canonical name and the
    aliases in use, never a secret name."""
    return [n for n in dict.fromkeys((record.name, *record.names_at(at))) if record.secret(n) is None]


def name_known(listener: Member, speaker: CharacterRecord, at: Position, told: str) -> str | None:
    """The name by which ``listener`` knows ``speaker`` at ``at``: a public name it has come
    across by then, else one said in the scene while it listened (``told``: those lines, case-
    folded). None: ``speaker`` is a stranger to it."""
    names = public_names(speaker, at)
    for name in names:
        if norm(name) in listener.horizon.known_names:
            return name
    for name in names:
        if _said(name, told):
            return name
    return None


def labels_for(listener: Member, others: Iterable[CharacterRecord], at: Position, told: str) -> dict[str, str]:
    """Canonical name → how ``listener`` is shown each of ``others`` (strangers numbered in the
    order given)."""
    found: dict[str, str] = {}
    strangers = [r for r in others if r.name != listener.name]
    nameless = 0
    for record in strangers:
        known = name_known(listener, record, at, told)
        if known is None:
            nameless += 1
            known = STRANGER if nameless == 1 else f"{STRANGER} {nameless}"
        found[record.name] = known
    return found

