"""What a chat leaves behind: its turns, the evidence behind each reply, and where in story time
the character stood when each turn was spoken.

A saved transcript is plain JSON (``format: incanon-chat/1``) that ``ChatTranscript.load`` reads
back unchanged, so a conversation can be inspected, diffed, or replayed into a new session.
"""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from incanon.agents.base import CallRecord
from incanon.errors import InputError, NotFoundError
from incanon.files import write_text_atomic

FORMAT = "incanon-chat/1"


def utcnow() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(timezone.utc)


class ChunkEvidence(BaseModel):
    """A passage of the source that a method retrieved for the reply."""

    id: str
    position: str = ""
    scene: str | None = None
    score: float | None = None
    text: str = ""
    shown: bool = False
    """True when the passage reached the final (answering) prompt."""
    in_scope: bool = True
    """True only when the character can know the passage: before now *and* witnessed (or tied
    to no scene). The papers' methods may read others (``rag`` the future, ``rag-cutoff`` scenes
    the character missed, the narrative experts the whole book)."""
    label: str = "in scope"
    """``in scope``, ``before now, not witnessed`` or ``after now``."""


class CallEvidence(BaseModel):
    """One model call of the reply: what it was for, its last message, and its output."""

    step: str
    system: str = ""
    """The call's system prompt, if it had one (the persona, naming the character's moment)."""
    prompt: str
    """The last message sent (the question with what was attached to it)."""
    output: str
    messages: int
    """How many messages the call sent in all (system prompt and history included)."""


class Evidence(BaseModel):
    """Everything that shaped one reply: the knowledge scope in force, the hints, the retrieved
    canon (chunks, graph facts, memories, examples) and the calls."""

    method: str
    at: str
    """The character's story position when the reply was made."""
    when: str
    """That moment as the prompt named it."""
    scope: dict[str, Any] | None = None
    """``KnowledgeScope.describe()``: counts of what is visible and hidden."""
    hints: list[str] = Field(default_factory=list)
    chunks: list[ChunkEvidence] = Field(default_factory=list)
    graph: dict[str, Any] = Field(default_factory=dict)
    """Knowledge-graph retrieval: ``nodes`` (entity names), ``relations``, ``outside``..."""
    memories: list[str] = Field(default_factory=list)
    """Other retrieved context (dialogue memories, a profile), by id."""
    examples: list[dict[str, Any]] = Field(default_factory=list)
    """In-canon examples a few-shot method showed the model."""
    calls: list[CallEvidence] = Field(default_factory=list)
    details: dict[str, Any] = Field(default_factory=dict)
    """The method's own findings (expert verdicts, refine rounds...), as the agent reported them."""


class ChatTurn(BaseModel):
    """One turn of the conversation."""

    index: int
    speaker: str
    """``user``, or the character's name for the character's replies."""
    text: str
    at: str
    """The character's story position when the turn was spoken."""
    method: str | None = None
    """The method that produced a reply (None for the user's turns)."""
    evidence: Evidence | None = None
    """What shaped a reply (None for the user's turns)."""


class Stop(BaseModel):
    """The character moved to ``at`` before turn ``turn`` (the first stop is where they start)."""

    turn: int
    at: str
    label: str = ""
    """The character's time-point label there, when the position is one of them."""


class MethodUse(BaseModel):
    """The method ``method`` answered from turn ``turn`` on."""

    turn: int
    method: str


class ChatTranscript(BaseModel):
    """A whole conversation, as saved by ``/save``."""

    format: str = FORMAT
    work: str
    work_title: str = ""
    character: str
    model: str = ""
    """The model spec the character was played by."""
    created: datetime = Field(default_factory=utcnow)
    saved: datetime | None = None
    positions: list[Stop] = Field(default_factory=list)
    """Where the character stood over time."""
    methods: list[MethodUse] = Field(default_factory=list)
    """Which method answered over time."""
    turns: list[ChatTurn] = Field(default_factory=list)

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the transcript as JSON, atomically (a crash leaves the old file or the new
        one, never half of one); returns the path written."""
        target = Path(path).expanduser()
        text = self.model_copy(update={"saved": utcnow()}).model_dump_json(indent=2)
        return write_text_atomic(target, text + "\n")

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> "ChatTranscript":
        """Read a saved transcript; a missing or malformed file is one clear error."""
        source = Path(path).expanduser()
        if not source.is_file():
            raise NotFoundError(f"no chat transcript at {source}")
        from incanon.reading import read_json

        data = read_json(source, "chat transcript")
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise InputError(f"not an incanon chat transcript (expected format {FORMAT!r})", source=str(source))
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise InputError(first["msg"], source=str(source), where=where) from None


def call_evidence(call: CallRecord) -> CallEvidence:
    """A recorded call, reduced to what ``/why`` shows."""
    last = call.messages[-1].content if call.messages else ""
    system = next((m.content for m in call.messages if m.role == "system"), "")
    return CallEvidence(step=call.step, system=system, prompt=last, output=call.output,
                        messages=len(call.messages))
