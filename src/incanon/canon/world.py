"""The JSON interchange format of a work: what ``incanon canon import/export`` reads and writes.

A ``World`` is the whole canon of one work as plain data. Names (not database ids) link the
records: a scene lists its participants by character name, a relation names its source and
target. Positions are strings in ``Position.parse`` form. The canon store validates references
on import and reports the first bad one by JSON path.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_serializer, field_validator, model_validator

from incanon.canon.position import Axis, Position
from incanon.errors import InputError

SCHEMA_VERSION = 1

EntityType = Literal["character", "location", "time", "event", "organization", "object", "concept"]
Affection = Literal["high", "low"]


def _check_position(value: str | None) -> str | None:
    if value is not None:
        try:
            Position.parse(value)
        except InputError as exc:
            # A ValueError lets pydantic attach the field path (e.g. ``chunks[3].position``) to
            # the message; an InputError would escape validation without saying where it was.
            raise ValueError(str(exc)) from None
    return value


class _Record(BaseModel):
    # NaN / Infinity are not numbers a story has; SQLite would refuse NaN deep inside an import.
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class TimePoint(_Record):
    """A named moment of a character's story, e.g. "end of book 1" → ``1-6``."""

    label: str
    """Human label, e.g. "1st year, Christmas"."""
    position: str
    """Where on the axis it falls."""
    description: str = ""
    """What the character's situation is at that moment (used in role-play prompts)."""
    profile: str = ""
    """Who the character is *as of this moment*, written only from the story up to it. When set,
    the character at this time point (and until the next one that sets it) gets this profile
    instead of anything derived from the whole-story ``profile``."""
    personality: str = ""
    """Tone and manner as of this moment (same rule as ``profile``)."""

    _v = field_validator("position")(_check_position)


class Segment(_Record):
    """A dated piece of profile or personality text: true of the character from ``from`` on."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, populate_by_name=True, serialize_by_alias=True)

    text: str
    """The sentence(s)."""
    from_: str | None = Field(default=None, alias="from")
    """Where it becomes true; None = from the start."""
    tells: list[str] = Field(default_factory=list, exclude_if=lambda v: not v)
    """Ids of the scenes and facts this text reports: it is given to the character only once
    the character has perceived every one (witnessed the scene, knows the fact)."""

    _v = field_validator("from_")(_check_position)


class SecretName(_Record):
    """A name that is one person's secret: others who hear it take it for someone else until they
    learn who it is (Edward Hyde of Henry Jekyll). The character itself knows from the start;
    ``known_by`` from the start too; whoever witnesses a scene of ``revealed_in`` from that scene
    on; and whoever is told a fact naming both names."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    revealed_in: list[str] = Field(default_factory=list)
    """Ids of the scenes where the identity comes out (empty: never, within the story)."""
    known_by: list[str] = Field(default_factory=list)
    """Other characters who know it from the start."""


_ALIAS_KEYS = {"name", "from", "secret", "revealed_in", "known_by"}


def _dated_names(value: Any) -> tuple[list[Any], dict[str, str], dict[str, Any]]:
    """Split an ``aliases`` list that mixes plain names and ``{"name", "from", "secret",
    "revealed_in", "known_by"}`` objects."""
    names: list[Any] = []
    starts: dict[str, str] = {}
    secrets: dict[str, Any] = {}
    for item in value:
        if isinstance(item, dict) and set(item) <= _ALIAS_KEYS and "name" in item:
            names.append(item["name"])
            if item.get("from") is not None:
                starts[str(item["name"])] = item["from"]
            if item.get("secret") or "revealed_in" in item or "known_by" in item:
                if item.get("secret") is False:
                    # Reveal details on a name said not to be secret: a contradiction to report.
                    raise ValueError(f"alias {item['name']!r} gives revealed_in/known_by but secret is false")
                secrets[str(item["name"])] = {k: item[k] for k in ("revealed_in", "known_by") if k in item}
        else:
            names.append(item)
    return names, starts, secrets


class Character(_Record):
    """A character of the work."""

    name: str
    """Canonical name."""
    aliases: list[str] = Field(default_factory=list)
    """Other names and forms of address the story uses. In a world file an alias may be
    ``{"name": "Stormwren", "from": "2-3-1"}``: in use from that position on (a plain string is
    in use from the start); ``{"name": "Edward Hyde", "secret": true, "revealed_in": ["s10"],
    "known_by": ["Poole"]}``: a secret identity (see ``SecretName``)."""
    alias_from: dict[str, str] = Field(default_factory=dict, exclude=True)
    """Alias → the position from which it is in use (filled from the ``aliases`` objects)."""
    secret_names: dict[str, SecretName] = Field(default_factory=dict, exclude=True)
    """Alias → who knows it is this character (filled from ``aliases`` objects with
    ``"secret": true``; see ``SecretName``)."""
    profile: str = ""
    """Who they are (background, role in the story). Often written from the whole work: the
    character at a position then gets only the sentences that name nothing hidden there."""
    personality: str = ""
    """Traits, tone, manner and vocabulary, for personality judging and role-play prompts."""
    profile_segments: list[Segment] = Field(default_factory=list)
    """Dated profile text (a world file may also give ``profile`` as a list of
    ``{"text", "from"}``): the character at a position gets the segments begun by then."""
    personality_segments: list[Segment] = Field(default_factory=list)
    """Dated personality text, as ``profile_segments``."""
    first_position: str | None = None
    """Where the character first appears."""
    card: dict[str, Any] | None = None
    """For a character imported from a character card: ``{"document": the card as it was read,
    "facts": {fact id: index of the lorebook entry it came from}}``. An export of the character
    starts from the document, so a third-party card survives a round trip whole."""
    time_points: list[TimePoint] = Field(default_factory=list)
    """Named moments a user can put the character at."""

    _v = field_validator("first_position")(_check_position)

    @model_validator(mode="before")
    @classmethod
    def _dated_forms(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        data = dict(data)
        if isinstance(data.get("aliases"), list):
            names, starts, secrets = _dated_names(data["aliases"])
            data["aliases"] = names
            if starts:
                data["alias_from"] = {**starts, **dict(data.get("alias_from") or {})}
            if secrets:
                data["secret_names"] = {**secrets, **dict(data.get("secret_names") or {})}
        for key in ("profile", "personality"):
            if isinstance(data.get(key), list):
                data[f"{key}_segments"] = [*data[key], *(data.get(f"{key}_segments") or [])]
                data[key] = ""
        return data

    @field_validator("alias_from")
    @classmethod
    def _alias_positions(cls, value: dict[str, str]) -> dict[str, str]:
        for pos in value.values():
            _check_position(pos)
        return value

    @model_validator(mode="after")
    def _known_aliases(self) -> "Character":
        unknown = [a for a in self.alias_from if a not in self.aliases]
        if unknown:
            raise ValueError(f"alias_from names {unknown[0]!r}, which is not one of the aliases")
        unknown = [a for a in self.secret_names if a not in self.aliases]
        if unknown:
            raise ValueError(f"secret_names names {unknown[0]!r}, which is not one of the aliases")
        return self

    @field_serializer("aliases")
    def _write_aliases(self, aliases: list[str]) -> list[Any]:
        # Dated and secret aliases go back out in the form a world file gives them.
        out: list[Any] = []
        for a in aliases:
            if a not in self.alias_from and a not in self.secret_names:
                out.append(a)
                continue
            item: dict[str, Any] = {"name": a}
            if a in self.alias_from:
                item["from"] = self.alias_from[a]
            if a in self.secret_names:
                secret = self.secret_names[a]
                item["secret"] = True
                if secret.revealed_in:
                    item["revealed_in"] = list(secret.revealed_in)
                if secret.known_by:
                    item["known_by"] = list(secret.known_by)
            out.append(item)
        return out


class ChunkUnit(_Record):
    """A perceived unit of a chunk's text (see ``incanon.canon.perception``): who perceives this
    part of the chunk. Text of the chunk that no unit covers is cut by the default rule (quoted
    speech heard by those present; narration the narrator's alone in a first-person work)."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, populate_by_name=True, serialize_by_alias=True)

    text: str
    """The unit's exact text, found in the chunk after the previous unit's."""
    mode: Literal["speech", "action", "thought", "narration", "document"]
    """Said aloud, done in view, a character's unspoken thought or feeling, the narrator's
    telling, or a letter or other writing."""
    by: str | None = None
    """Who says, does, thinks or writes it (a character name); narration: the narrator."""
    audience: Literal["present", "private", "everyone"] | None = None
    """Who perceives it: those present at the chunk's scene, only ``by`` (and ``known_by``), or
    everyone. Default: present for speech and action; private for thoughts and documents, and for
    narration in a first-person work."""
    known_by: list[str] = Field(default_factory=list)
    """Characters who perceive it besides the audience: a letter's readers, an eavesdropper, one
    told in confidence."""
    from_: str | None = Field(default=None, alias="from")
    """Where ``known_by`` perceive it (a letter: when it is read); None = the chunk's position."""

    _v = field_validator("from_")(_check_position)


class Chunk(_Record):
    """A piece of raw source text at a story position."""

    id: str
    """Unique within the work."""
    position: str
    """Where the text happens."""
    text: str
    """The text."""
    source: str = ""
    """File or book the text came from."""
    scene: str | None = None
    """The scene this chunk belongs to, if any (scene id)."""
    narrator: str | None = Field(default=None, exclude_if=lambda v: v is None)
    """Who tells this chunk in the first person, when not the work's narrator (a frame story's
    letters, a tale told within the tale); its narration is then this character's alone."""
    # Left out of the JSON when empty, so a world without units writes (and fingerprints) as before.
    units: list[ChunkUnit] = Field(default_factory=list, exclude_if=lambda v: not v)
    """Who perceives which part of the text (see ``ChunkUnit``); empty: the default rule."""

    _v = field_validator("position")(_check_position)


class Utterance(_Record):
    """One message of a scene: speech, (action) and [thought] channels."""

    speaker: str
    """Character name, ``Environment`` for narration, or ``impersonal``."""
    speech: str = ""
    """What is said aloud."""
    action: str = ""
    """What is done, visible to others."""
    thought: str = ""
    """Inner thought, visible to no one else."""


class Scene(_Record):
    """A scene or dialogue session: a place and time where some characters are present."""

    id: str
    """Unique within the work, e.g. ``1-2-3`` or ``session-14``."""
    position: str
    """Where on the axis it happens."""
    date: str | None = None
    """Calendar date, for dated sessions (ISO)."""
    title: str = ""
    """Short title."""
    location: str = ""
    """Where it happens."""
    summary: str = ""
    """One or two sentences saying what happens."""
    participants: list[str] = Field(default_factory=list)
    """Characters present (they witness everything said and done)."""
    speakers: list[str] = Field(default_factory=list)
    """Characters who speak (a subset of participants)."""
    messages: list[Utterance] = Field(default_factory=list)
    """The dialogue, when known."""

    _v = field_validator("position")(_check_position)


class Entity(_Record):
    """A non-character thing the story knows about: place, object, organization, event."""

    name: str
    type: EntityType
    description: str = ""
    aliases: list[str] = Field(default_factory=list)
    position: str | None = None
    """Where it first becomes known in the story."""

    _v = field_validator("position")(_check_position)


class Relation(_Record):
    """A directed relation between two named characters or entities, valid over a span."""

    source: str
    target: str
    type: str
    """e.g. ``friend``, ``sister``, ``mentor``, ``enemy``, ``lives_in``."""
    description: str = ""
    affection: Affection | None = None
    """High or low affection of source toward target (SHARP)."""
    weight: float = 1.0
    """Strength of the relation."""
    valid_from: str | None = None
    """Where it becomes true; None = from the start."""
    valid_to: str | None = None
    """Where it stops being true (exclusive); None = to the end."""

    _v = field_validator("valid_from", "valid_to")(_check_position)


class Fact(_Record):
    """A statement that becomes true at a position, learned by witnesses or by everyone."""

    id: str
    subject: str
    """The character or entity the fact is about."""
    text: str
    """The fact in one sentence."""
    position: str
    """Where it becomes true."""
    valid_to: str | None = None
    """Where it stops being true (exclusive)."""
    scene: str | None = None
    """The scene that establishes it; characters not in that scene do not learn it there."""
    public: bool = False
    """Known to every character from ``position`` on (news, common knowledge)."""
    known_by: list[str] = Field(default_factory=list)
    """Characters who learn it later or second-hand (from ``position``)."""

    _v = field_validator("position", "valid_to")(_check_position)


class Probe(_Record):
    """A ground-truth interview question for a character at a time point (demo and tests)."""

    character: str
    at: str
    """The character's position."""
    question: str
    data_type: Literal["future", "past-absence", "past-presence", "past-only"]
    event: str
    """Scene id (or fact id) the question is about."""
    gold_response: str
    """What an in-canon answer says."""

    _v = field_validator("at")(_check_position)


class WorkInfo(_Record):
    """The work itself."""

    id: str
    """Short slug, unique within a store."""
    title: str
    author: str = ""
    axis: Axis = Axis.CHAPTER
    description: str = ""
    books: dict[str, str] = Field(default_factory=dict)
    """Book number → book title."""
    narrator: str | None = Field(default=None, exclude_if=lambda v: v is None)
    """The character who tells the story in the first person; None for a third-person
    narrator. Narration of a first-person work is the narrator's alone (``ChunkUnit``)."""


class World(_Record):
    """The whole canon of one work."""

    schema_version: int = SCHEMA_VERSION
    work: WorkInfo
    characters: list[Character] = Field(default_factory=list)
    chunks: list[Chunk] = Field(default_factory=list)
    scenes: list[Scene] = Field(default_factory=list)
    entities: list[Entity] = Field(default_factory=list)
    relations: list[Relation] = Field(default_factory=list)
    facts: list[Fact] = Field(default_factory=list)
    probes: list[Probe] = Field(default_factory=list)
