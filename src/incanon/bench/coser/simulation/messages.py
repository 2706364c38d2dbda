"""What a simulation leaves behind: its messages, each with where it came from, and how it ended.

A ``SimMessage`` is CoSER's ``{"role", "content"}`` plus provenance; it is also a line of the
scene engine (:class:`incanon.scenes.engine.Line`): every role hears every message (a CoSER
scene has no asides and no story clock), and what a role may not see of another's message (its
[thoughts]) is taken out by the view, not by who heard it.
"""

from __future__ import annotations

from typing import Literal, Sequence

from pydantic import BaseModel, Field

from incanon.bench.coser.scoring import actor_rounds
from incanon.scenes.nsp import Decision

Source = Literal["original", "actor", "environment"]
Ending = Literal["nsp", "max_rounds", "original"]


class SimMessage(BaseModel):
    """One message of the simulated scene (CoSER's ``{"role", "content"}`` plus provenance)."""

    role: str
    content: str
    source: Source
    raw: str | None = None
    """The model's output before cleaning, when cleaning changed it."""
    retrieved: list[str] | None = None
    """What the actor recalled just before writing this message (retrieval augmentation)."""

    # As a line of the scene engine (properties: never part of the dumped message).
    @property
    def speaker(self) -> str:
        """The role that said it."""
        return self.role

    @property
    def text(self) -> str:
        """The message as written, thoughts included (the view conceals them from others)."""
        return self.content

    @property
    def heard_by(self) -> Sequence[str] | None:
        """Everyone: a CoSER scene has no asides."""
        return None

    @property
    def to(self) -> str | None:
        """Never an aside."""
        return None

    @property
    def at(self) -> str | None:
        """Undated: the scene has no story clock beyond its plot."""
        return None


class Simulation(BaseModel):
    """A simulated scene and how it came about."""

    case_id: str
    messages: list[SimMessage] = Field(default_factory=list)
    decisions: list[Decision] = Field(default_factory=list)
    """Every next-speaker decision, in order."""
    ended_by: Ending = "max_rounds"
    prompts: dict[str, str] = Field(default_factory=dict)
    """Role → system prompt it was given (actors without what they recalled, Environment, NSP)."""

    @property
    def actor_rounds(self) -> int:
        """Messages not spoken by the Environment (the scoring's length correction)."""
        return actor_rounds([m.model_dump() for m in self.messages])

    def coser_messages(self) -> list[dict[str, str]]:
        """The scene in CoSER's layout: ``[{"role", "content"}]``."""
        return [{"role": m.role, "content": m.content} for m in self.messages]
