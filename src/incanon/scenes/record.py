"""What a scene leaves behind: its cast, where it stands in story time, and every line with who
heard it.

A scene is plain JSON (``format: incanon-scene/1``): ``/save`` writes it, the scenes store keeps
it, ``Scene.load`` reads it back unchanged. Who heard a line is decided when the line is said
(the characters present then, or the one an aside is addressed to) and never recomputed, so a
character that enters later, or is moved in story time, has heard exactly what it heard. Each
line also keeps the story position it was said at: what a character learned in the scene is
known from there on (a scene moved back before a line does not know it yet), and it stays with
the scene (the scenes store keeps it, ``--reopen`` brings it back), never in the canon.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from incanon.agents.registry import DEFAULT_METHOD
from incanon.canon.position import Position
from incanon.chat.transcript import Evidence, Stop, utcnow
from incanon.errors import InputError, NotFoundError
from incanon.files import write_text_atomic
from incanon.scenes.engine import hears, said_by

FORMAT = "incanon-scene/1"

NARRATOR = "narrator"
"""The speaker of the user's own lines (stage directions, questions to the room)."""

MIN_CAST, MAX_CAST = 2, 4
"""Characters a scene puts together (CoSER's scenes have a handful; more drowns small models)."""


class SceneLine(BaseModel):
    """One line of the scene."""

    index: int
    speaker: str
    """``narrator`` or a character's canonical name."""
    text: str
    to: str | None = None
    """An aside: only this character (and the speaker) heard it."""
    heard_by: list[str] = Field(default_factory=list)
    """The characters who heard the line (canonical names), fixed when it was said."""
    at: str
    """The scene's story position when the line was said."""
    written_by: Literal["user", "model"] = "user"
    """``model``: the character's model answered (its scope and evidence are kept); ``user``:
    the user wrote it (a narrator line, or ``/as NAME`` speaking for a character)."""
    method: str = ""
    """The role-play method that answered (model lines)."""
    chosen: str = ""
    """How the speaker was chosen (model lines): ``user``, ``round-robin``, ``next-speaker
    prediction`` or the prediction's fallback."""
    evidence: Evidence | None = None
    """Whose scope answered and what shaped the line (model lines)."""


class CastChange(BaseModel):
    """``character`` entered (``present``) or left the scene before line ``turn``."""

    turn: int
    character: str
    present: bool


class Scene(BaseModel):
    """A whole scene, as ``/save`` writes it and the scenes store keeps it."""

    format: str = FORMAT
    id: str
    work: str
    work_title: str = ""
    setting: str | None = None
    """The id of the book's scene it is set in (its place), if one was chosen."""
    characters: list[str] = Field(default_factory=list)
    """Everyone who has been in the scene (canonical names), in the order they came."""
    present: list[str] = Field(default_factory=list)
    """Who is in the scene now."""
    at: str
    """Where the scene stands in story time now (a position)."""
    order: Literal["nsp", "round-robin"] = "nsp"
    """How the next speaker is chosen when the user names none."""
    method: str = DEFAULT_METHOD
    model: str = ""
    """The model spec the characters are played by."""
    created: datetime = Field(default_factory=utcnow)
    saved: datetime | None = None
    stops: list[Stop] = Field(default_factory=list)
    """Where the scene stood over time (``Stop.turn``: the first line said there)."""
    cast: list[CastChange] = Field(default_factory=list)
    """Entrances and exits after the start."""
    lines: list[SceneLine] = Field(default_factory=list)

    def heard(self, character: str, at: Position | None = None) -> list[SceneLine]:
        """The lines ``character`` heard, in order; with ``at``, only those said at or before that
        story position (a line said later in the story is not known yet there)."""
        return [line for line in self.lines if hears(character, line) and said_by(line, at)]

    def learned(self, character: str, at: Position | None = None) -> list[SceneLine]:
        """What ``character`` learned in the scene: the lines others said that it heard (its own
        left out), at or before ``at`` when given. Kept with the scene, never in the canon."""
        return [line for line in self.heard(character, at) if line.speaker != character]

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the scene as JSON, atomically; returns the path written."""
        text = self.model_copy(update={"saved": utcnow()}).model_dump_json(indent=2)
        return write_text_atomic(Path(path).expanduser(), text + "\n")

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> "Scene":
        """Read a saved scene; a missing or malformed file is one clear error."""
        source = Path(path).expanduser()
        if not source.is_file():
            raise NotFoundError(f"no scene file at {source}")
        from incanon.reading import read_json

        data = read_json(source, "scene")
        return cls.from_json_data(data, str(source))

    @classmethod
    def from_json_data(cls, data: object, source: str = "scene") -> "Scene":
        """A scene from its JSON document; anything else is an ``InputError`` naming the field."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise InputError(f"not an incanon scene (expected format {FORMAT!r})", source=source)
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            raise InputError(first["msg"], source=source, where=".".join(str(p) for p in first["loc"])) from None
