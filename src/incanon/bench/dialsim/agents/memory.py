"""The memory agent: hears every utterance, keeps what its strategy keeps, answers from it.

A ``MemoryAgent`` is an ``Agent`` (``respond(who, dialogue)`` answers the last turn) with two
more hooks the simulator calls in real time: ``observe(line)`` for each utterance and
``end_session(session)`` when a session ends. Strategies differ only in what they store and
how ``recall`` picks from it. Every strategy also sees the conversation it is in (the last
lines of the current session, up to a quarter of the context budget); ``recall`` fills the
rest of the budget with earlier memory, best first, shown in story order.

Options: ``answer_format`` (``mc``, ``mc-nl``, ``open``), ``k`` (top-k), ``context_tokens``
(budget for remembered text, estimated at four characters a token), ``constrain_choices``
(multiple choice only: a JSON grammar limits the reply to one of the five markers, for small
local models that ramble), ``embedder`` (embedding strategies; a spec or an ``Embedder``).
"""

from __future__ import annotations

import json
from abc import abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from incanon.agents.base import Agent, CallRecord, CharacterAt, Reply, Turn
from incanon.bench.dialsim.dates import spoken
from incanon.bench.dialsim.formats import check_format, strip_choices
from incanon.bench.dialsim.questions import MARKERS
from incanon.bench.dialsim.script import DialSession, Line
from incanon.models.types import ChatModel, GenerationParams, Message

DEFAULT_CONTEXT_TOKENS = 2500


def estimate_tokens(text: str) -> int:
    """About four characters a token: close enough to keep prompts inside a context window."""
    return len(text) // 4 + 1


@dataclass(frozen=True)
class Unit:
    """One stored piece of memory."""

    order: int
    """Insertion order (story order)."""
    session: str
    date: str
    text: str


class MemoryAgent(Agent):
    """Base of the DialSim memory strategies (see the module docstring)."""

    strategy: ClassVar[str] = ""
    default_k: ClassVar[int] = 10

    def __init__(self, model: ChatModel, *, answer_format: str = "mc", k: int | None = None,
                 context_tokens: int = DEFAULT_CONTEXT_TOKENS, constrain_choices: bool = False, **options: Any) -> None:
        super().__init__(model, **options)
        self.answer_format = check_format(answer_format)
        self.k = k or self.default_k
        self.context_tokens = context_tokens
        self.constrain_choices = constrain_choices
        self.current: list[Line] = []
        self.current_session: str | None = None
        self.reset()

    # -- memory hooks ----------------------------------------------------------------------
    def reset(self) -> None:
        """Forget everything (a new simulation)."""
        self.current, self.current_session = [], None
        self._reset()

    async def observe(self, line: Line) -> None:
        """Hear one utterance."""
        if line.session != self.current_session:
            self.current, self.current_session = [], line.session
        self.current.append(line)
        await self._observe(line)

    async def end_session(self, session: DialSession) -> None:
        """The session is over: strategies that store whole sessions (or summaries) do it now."""
        await self._end_session(session, list(self.current))
        self.current, self.current_session = [], None

    async def warm_up(self) -> None:
        """Load what loads on first use (a local model, an embedder) before the clock starts."""
        await self.model.generate([Message(role="user", content="Hello.")], GenerationParams(max_tokens=1))

    def _reset(self) -> None:
        pass

    async def _observe(self, line: Line) -> None:
        pass

    async def _end_session(self, session: DialSession, lines: list[Line]) -> None:
        pass

    @abstractmethod
    def recall(self, query: str, evidence: Sequence[str], budget: int) -> list[Unit]:
        """Earlier memory for ``query`` (best first) within ``budget`` tokens."""

    # -- answering -------------------------------------------------------------------------
    def _current_lines(self, budget: int) -> list[str]:
        lines: list[str] = []
        used = 0
        for line in reversed(self.current):
            cost = estimate_tokens(line.render())
            if used + cost > budget:
                break
            lines.append(line.render())
            used += cost
        return lines[::-1]

    @staticmethod
    def fit(units: Sequence[Unit], budget: int) -> list[Unit]:
        """The best units that fit in ``budget`` tokens, in story order."""
        kept, used = [], 0
        for unit in units:
            cost = estimate_tokens(unit.text)
            if used + cost <= budget:
                kept.append(unit)
                used += cost
        return sorted(kept, key=lambda u: u.order)

    def _params(self) -> GenerationParams:
        if self.answer_format != "mc" or not self.constrain_choices:
            return self.params
        schema = {"type": "object", "properties": {"answer": {"type": "string", "enum": list(MARKERS)}},
                  "required": ["answer"], "additionalProperties": False}
        return self.params.model_copy(update={"response_format": {
            "type": "json_schema", "json_schema": {"name": "choice", "schema": schema, "strict": True}}})

    async def respond(self, who: CharacterAt, dialogue: Sequence[Turn]) -> Reply:
        """Answer the last turn (the question) from memory. ``Turn.about`` may carry the
        comma-separated evidence session ids (only the oracle reads them)."""
        turn = dialogue[-1]
        evidence = [e for e in (turn.about or "").split(",") if e]
        current = self._current_lines(self.context_tokens // 4)
        budget = self.context_tokens - sum(estimate_tokens(c) for c in current)
        units = self.recall(f"{turn.speaker}: {strip_choices(turn.text)}", evidence, budget)
        prompt = self.prompts.render(
            "dialsim_answer", character=who.character, date=who.time_label or spoken(str(who.position)),
            history=[u.text for u in units], current=current, asker=turn.speaker, question=turn.text,
            answer_format=self.answer_format)
        calls: list[CallRecord] = []
        messages = [Message(role="user", content=prompt)]
        text = await self._call("answer", messages, calls, self._params())
        if self.answer_format == "mc" and self.constrain_choices:
            text = _choice(text)
        return Reply(text=text, method=self.name, calls=calls,
                     context=[f"{u.session}#{u.order}" for u in units],
                     details={"strategy": self.strategy, "retrieved": len(units), "current_lines": len(current)})


def _choice(text: str) -> str:
    try:
        value = json.loads(text).get("answer")
    except (ValueError, AttributeError):
        return text
    return value if isinstance(value, str) else text
