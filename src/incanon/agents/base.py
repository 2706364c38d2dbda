"""The role-play agent plug point.

An agent is one role-play *method* (zero-shot, RAG-cutoff, narrative experts, ...). It answers
as a character who stands at one point of the story; ``CharacterAt`` says who and when, and
carries the knowledge scope that retrieval methods filter through. Every agent returns a
``Reply`` that records the calls it made and what reached its final prompt, so reports and
chat's ``/why`` can show what shaped an answer.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar, Sequence

from pydantic import BaseModel, ConfigDict, Field

from incanon.canon.position import Position
from incanon.models.types import ChatModel, GenerationParams, Message
from incanon.templates import PromptLibrary, default_library


class CharacterAt(BaseModel):
    """A character standing at one point of the story: everything a role-play prompt needs."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    work_title: str
    """Title of the work (series or book)."""
    author: str = ""
    """The work's author."""
    character: str
    """Canonical name."""
    aliases: list[str] = Field(default_factory=list)
    """Other names the character goes by."""
    secret_names: list[str] = Field(default_factory=list)
    """The character's own secret names that nobody but those in the know links to it yet
    (the character knows them; a listing or card for others never shows them)."""
    profile: str = ""
    """Background of the character."""
    personality: str = ""
    """Tone, manner and vocabulary."""
    position: Position
    """Where in story time the character stands."""
    time_label: str = ""
    """Human label of that moment, e.g. "end of book 1"."""
    time_description: str = ""
    """The character's situation at that moment."""
    scope: Any = None
    """The ``KnowledgeScope`` for (character, position), for methods that retrieve canon."""
    levels: list[str] = Field(default_factory=list)
    """What each number of a story position means, when the work has its own depth, e.g.
    ``["volume", "book", "chapter"]`` (The Lord of the Rings) or ``["book", "chapter"]``.
    Experts then ask for and compare positions at exactly that depth. Empty: the canon's
    ``book-chapter[-scene]`` axis."""
    series: str = ""
    """The published series slug (``harry_potter``...) when the character comes from a published
    row; few-shot methods use it to find the authors' examples."""
    period: str = ""
    """The time point as the item wrote it (``2nd-year / on Halloween``), for example lookups."""
    notes: list[str] = Field(default_factory=list)
    """What the scoped builder withheld from whole-story text, for reports and ``/why``."""

    @property
    def when(self) -> str:
        """The time point as the prompt names it."""
        return self.time_label or f"story position {self.position}"


class Turn(BaseModel):
    """One turn of the conversation the agent is in."""

    speaker: str
    """``user`` for the interviewer/user, else a character name."""
    text: str
    about: str | None = None
    """The scene (or fact) id the turn asks about, when the caller knows it (benchmark items
    do). Never shown to a model: methods that draw examples from the canon use it only to
    leave that scene out, so an example cannot give the answer away."""


class CallRecord(BaseModel):
    """One model call an agent made, for traces and reports."""

    step: str
    """What the call was for: ``answer``, ``temporal-expert``, ``feedback``..."""
    messages: list[Message]
    output: str


class Reply(BaseModel):
    """An agent's answer and the evidence behind it."""

    text: str
    """The in-character answer."""
    method: str
    """The method that produced it."""
    calls: list[CallRecord] = Field(default_factory=list)
    """Every model call, in order."""
    hints: list[str] = Field(default_factory=list)
    """Hints (e.g. from narrative experts) that reached the final prompt."""
    context: list[str] = Field(default_factory=list)
    """Retrieved canon (chunk ids or texts) that reached the final prompt."""
    details: dict[str, Any] = Field(default_factory=dict)
    """Method-specific findings for traces: expert verdicts, self-refine scores per round,
    chosen examples, retrieval scores. JSON-able."""


class Agent(ABC):
    """A role-play method. Subclasses set ``name`` and implement ``respond``."""

    name: ClassVar[str]
    requires: ClassVar[tuple[str, ...]] = ()
    """Options the method cannot run without (e.g. ``store``); ``create_agent`` checks them."""

    def __init__(
        self,
        model: ChatModel,
        *,
        prompts: PromptLibrary | None = None,
        params: GenerationParams | None = None,
        **options: Any,
    ) -> None:
        self.model = model
        self.prompts = prompts or default_library()
        self.params = params or GenerationParams(max_tokens=256)
        self.options = options

    raw_text: bool = False
    """Keep a call's text as the model wrote it (leading and trailing space too)."""

    def uses_scope(self) -> bool:
        """True when the method reads the canon through the character's knowledge scope
        (retrieval, in-canon examples), so it cannot run for a character without one."""
        return False

    @abstractmethod
    async def respond(self, who: CharacterAt, dialogue: Sequence[Turn]) -> Reply:
        """Answer the last turn of ``dialogue`` as ``who``."""

    async def _call(self, step: str, messages: list[Message], calls: list[CallRecord],
                    params: GenerationParams | None = None) -> str:
        """Make one model call and record it."""
        completion = await self.model.generate(messages, params or self.params)
        calls.append(CallRecord(step=step, messages=messages, output=completion.text))
        # A reference that passes the model's text on as it came (TimeChara's paper protocol)
        # sets ``raw_text``: its judges and feedback see the same bytes.
        return completion.text if self.raw_text else completion.text.strip()


def dialogue_messages(who: CharacterAt, dialogue: Sequence[Turn]) -> list[Message]:
    """The conversation as chat messages seen from the character's side."""
    messages = []
    for turn in dialogue:
        if turn.speaker == who.character:
            messages.append(Message(role="assistant", content=turn.text))
        elif turn.speaker == "user":
            messages.append(Message(role="user", content=turn.text))
        else:
            messages.append(Message(role="user", content=f"{turn.speaker}: {turn.text}"))
    return messages
