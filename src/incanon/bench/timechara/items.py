"""A TimeChara item: one interview question for one character at one point of the story.

The fields are the published dataset's (``series`` ... ``gold_response``), so a row of the
published set and an item built from a canon store are the same object; items built by incanon
also say where they come from in the canon (``work``, ``scene``, ``character_position``), which
lets an evaluation rebuild the character's knowledge scope.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

from incanon.judges.spatiotemporal import DataType

QuestionGeneration = Literal["fact_structured", "fact_freeform", "fake_freeform"]
"""How the question was made: a template, a free-form 5W1H question, or one about a fake event."""

DATA_TYPES: tuple[str, ...] = get_args(DataType)
"""``future``, ``past-absence``, ``past-presence``, ``past-only``."""
QUESTION_GENERATIONS: tuple[str, ...] = get_args(QuestionGeneration)

#: Data types each question kind may have (TimeChara §3.1-3.2, Appendix D.3): structured
#: questions probe presence, free-form ones general knowledge, fake ones only the past.
ALLOWED_TYPES: dict[str, frozenset[str]] = {
    "fact_structured": frozenset({"future", "past-presence", "past-absence"}),
    "fact_freeform": frozenset({"future", "past-only"}),
    "fake_freeform": frozenset({"past-only"}),
}

#: Data types judged on the spatial label too (score = temporal × spatial).
SPATIAL_TYPES = frozenset({"past-presence", "past-absence"})

NO_LABEL = "-"
"""What the published data puts in ``spatial_label`` (and ``fake_method``) when there is none."""


class TimeCharaItem(BaseModel):
    """One benchmark item, as published or as built from a canon store."""

    model_config = ConfigDict(extra="forbid")

    id: str = ""
    """Stable id within its item set (the row index for published files without ids)."""
    series: str
    """The work the item is about (``harry_potter``, or a canon work id)."""
    question_generation: QuestionGeneration
    fake_method: str = NO_LABEL
    """For fake questions, which of the six falsification strategies made the fake event."""
    event_summary: str = ""
    """The true event, in one sentence."""
    question: str
    question_period: str = ""
    """Where the event happens, ``book-chapter`` (published: e.g. ``Book1-chapter2``)."""
    character: str
    character_period: str
    """The character's time point as a human label (published: ``1st-year / on Christmas``)."""
    participants: list[str] = Field(default_factory=list)
    """Who was present at the event."""
    data_type: DataType
    temporal_label: str
    """What the character may and may not know about the event at their time point."""
    spatial_label: str = NO_LABEL
    """Past-presence/absence: whether the character was there; ``-`` otherwise."""
    gold_response: str = ""
    """An answer consistent with the labels."""

    # -- incanon's additions (all optional in files) ------------------------------------------
    work: str | None = None
    """Canon work id, when built from a canon store."""
    scene: str | None = None
    """Canon scene id of the event."""
    character_position: str | None = None
    """The character's time point on the work's axis (``Position`` text)."""
    personality_label: str = ""
    """The character's personality, for the personality judge."""
    fake_event_summary: str = ""
    """For fake questions, the falsified event the question presupposes."""
    answer: str = ""
    """For free-form questions, the true answer."""
    gold_consistent: bool | None = None
    """Whether the gold response passed the spatiotemporal check (None: not checked)."""
    gold_attempts: int = 0
    """Gold generations tried."""
    extra: dict[str, Any] = Field(default_factory=dict)
    """Fields of a loaded row that are not part of the format, kept as they were."""

    @property
    def has_spatial(self) -> bool:
        """True when the item is judged on its spatial label as well."""
        return self.data_type in SPATIAL_TYPES

    @property
    def is_fake(self) -> bool:
        """True for questions about a falsified event."""
        return self.question_generation == "fake_freeform"

    @property
    def is_structured(self) -> bool:
        """True for template questions."""
        return self.question_generation == "fact_structured"

    def row(self) -> dict[str, Any]:
        """The item as a JSON object (empty optional fields left out)."""
        data = self.model_dump(mode="json")
        for key in ("work", "scene", "character_position", "gold_consistent"):
            if data[key] is None:
                del data[key]
        for key in ("personality_label", "fake_event_summary", "answer"):
            if not data[key]:
                del data[key]
        if not data["extra"]:
            del data["extra"]
        if not data["gold_attempts"]:
            del data["gold_attempts"]
        return data
