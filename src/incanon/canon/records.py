"""Typed read models: what canon store lookups and knowledge scopes return.

They are frozen dataclasses (cheap to build by the hundred thousand, unlike validated models)
carrying ``Position`` objects rather than strings; ``to_dict()`` gives the JSON-able form with
positions as strings, as the CLI's ``--json`` output and the world format spell them.
Records name things (scene ids, character names) the way the interchange format does; database
row ids stay inside the store.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from incanon.canon.position import Axis, Position


def _jsonable(value: Any) -> Any:
    if isinstance(value, Position):
        return str(value)
    if isinstance(value, Axis):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            f.name: _jsonable(getattr(value, f.name))
            for f in dataclasses.fields(value)
            if f.repr  # internal row ids are repr=False and stay out of JSON too
        }
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    return value


class _Record:
    """Shared behaviour of the read models."""

    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict (positions as strings)."""
        return _jsonable(self)


@dataclass(frozen=True, slots=True)
class WorkRecord(_Record):
    """A work in the store."""

    id: str
    title: str
    author: str
    axis: Axis
    description: str
    books: dict[str, str]
    narrator: str | None = None
    """The first-person narrator (canonical name); None: a third-person narrator."""


@dataclass(frozen=True, slots=True)
class TimePointRecord(_Record):
    """A named moment of a character's story."""

    label: str
    position: Position
    description: str
    profile: str = ""
    """The profile as of this moment ("" when the world gives none)."""
    personality: str = ""
    """The personality as of this moment ("" when the world gives none)."""


@dataclass(frozen=True, slots=True)
class SegmentRecord(_Record):
    """Dated profile or personality text, true from ``position`` (None: from the start)."""

    text: str
    position: Position | None
    tells: tuple[str, ...] = ()
    """Scene and fact ids the text reports (given only once all are perceived)."""


@dataclass(frozen=True, slots=True)
class SecretNameRecord(_Record):
    """A secret name of a character: who knows it is theirs (see ``incanon.canon.identities``)."""

    alias: str
    revealed_in: tuple[str, ...]
    """Scene ids where the identity comes out."""
    revealed_at: Position | None
    """The earliest of those scenes' positions: a reader past it knows (None: never revealed)."""
    known_by: tuple[str, ...]
    """Characters who know from the start (besides the character itself)."""


@dataclass(frozen=True, slots=True)
class CharacterRecord(_Record):
    """A character with every name it answers to and its named time points.

    ``profile`` and ``personality`` are the world's undated text (often written from the whole
    story): build what a character may say of itself at a position with
    ``incanon.canon.persona_at``, never from these fields directly."""

    name: str
    aliases: tuple[str, ...]
    profile: str
    personality: str
    first_position: Position | None
    time_points: tuple[TimePointRecord, ...]
    alias_from: tuple[Position | None, ...] = ()
    """Per alias, the position from which it is in use (None: from the start)."""
    profile_segments: tuple[SegmentRecord, ...] = ()
    personality_segments: tuple[SegmentRecord, ...] = ()
    secret_names: tuple[SecretNameRecord, ...] = ()
    """Aliases that are a secret identity, with who knows them."""
    card: str = field(default="", repr=False)
    """The character card it was imported from, as JSON (``World`` ``Character.card``); ""."""
    row_id: int = field(default=0, repr=False, compare=False)

    def secret(self, alias: str) -> SecretNameRecord | None:
        """The secret of ``alias`` (None: a name anyone hearing it knows is this character)."""
        return next((s for s in self.secret_names if s.alias == alias), None)

    def shown_names_at(self, at: Position) -> tuple[str, ...]:
        """The aliases in use at ``at`` that a reader who has read up to ``at`` knows are this
        character: secret names only once revealed by then."""
        return tuple(a for a in self.names_at(at)
                     if (s := self.secret(a)) is None or (s.revealed_at is not None and s.revealed_at <= at))

    def alias_since(self, alias: str) -> Position | None:
        """Where ``alias`` comes into use (None: from the start, or not an alias)."""
        for name, since in zip(self.aliases, self.alias_from):
            if name == alias:
                return since
        return None

    def names_at(self, at: Position) -> tuple[str, ...]:
        """The aliases in use at ``at`` (the canonical name is always in use)."""
        if not self.alias_from:
            return self.aliases
        return tuple(a for a, since in zip(self.aliases, self.alias_from) if since is None or since <= at)


@dataclass(frozen=True, slots=True)
class SceneRecord(_Record):
    """A scene or dialogue session and who was there."""

    id: str
    position: Position
    date: str | None
    title: str
    location: str
    summary: str
    participants: tuple[str, ...]
    speakers: tuple[str, ...]
    row_id: int = field(default=0, repr=False, compare=False)


@dataclass(frozen=True, slots=True)
class MessageRecord(_Record):
    """One utterance of a scene. ``thought`` is empty when the reader may not see it."""

    scene: str
    order: int
    speaker: str
    speech: str
    action: str
    thought: str


@dataclass(frozen=True, slots=True)
class ChunkRecord(_Record):
    """A piece of source text at a story position."""

    id: str
    position: Position
    text: str
    source: str
    scene: str | None
    row_id: int = field(default=0, repr=False, compare=False)
    units: str | None = field(default=None, repr=False, compare=False)
    """The perceived units as stored (JSON; ``incanon.canon.perception``); None: the whole
    chunk is seen by those present (a store from before units)."""


@dataclass(frozen=True, slots=True)
class EntityRecord(_Record):
    """A place, object, organization, event or concept of the story."""

    name: str
    type: str
    description: str
    aliases: tuple[str, ...]
    position: Position | None
    row_id: int = field(default=0, repr=False, compare=False)


@dataclass(frozen=True, slots=True)
class RelationRecord(_Record):
    """A directed relation valid from ``valid_from`` (inclusive) to ``valid_to`` (exclusive)."""

    source: str
    target: str
    type: str
    description: str
    affection: str | None
    weight: float
    valid_from: Position | None
    valid_to: Position | None


@dataclass(frozen=True, slots=True)
class FactRecord(_Record):
    """A statement true from ``position`` (until ``valid_to``, exclusive)."""

    id: str
    subject: str
    text: str
    position: Position
    valid_to: Position | None
    scene: str | None
    public: bool
    known_by: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ProbeRecord(_Record):
    """A ground-truth interview question for a character at a position."""

    character: str
    at: Position
    question: str
    data_type: str
    event: str
    gold_response: str


T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Hit(_Record, Generic[T]):
    """A search result: the record and its cosine similarity to the query."""

    item: T
    score: float
