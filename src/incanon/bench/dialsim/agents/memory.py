"""The memory agent: hears every utterance, keeps what its strategy keeps, answers from it.

A ``MemoryAgent`` is an ``Agent`` (``respond(who, dialogue)`` answers the last turn) with more
hooks the simulator calls in real time: ``observe(line)`` for each utterance, ``end_session``
when a session ends, ``mark``/``rollback`` to drop a memory update that came too late (the
reference pops the history entry whose save timed out), and ``retrieve`` then ``answer``, which
``respond`` chains, so the simulator can time retrieval and answer apart as the reference does.

Strategies differ only in what they store (``units``, plus an index) and how ``recall`` picks
from it. Every strategy also sees the conversation it is in (the last lines of the current
session, up to a quarter of the context budget); ``recall`` fills the rest of the budget with
earlier memory, best first, shown in story order.

Options: ``answer_format`` (``mc``, ``mc-nl``, ``open``), ``k`` (top-k), ``context_tokens``
(budget for remembered text, estimated at four characters a token; default: the model's context
size minus 500, see :mod:`incanon.bench.dialsim.context`), ``constrain_choices`` (multiple choice
only: a JSON grammar limits the reply to one of the five markers, for small local models that
ramble), ``prompt_set`` (``""`` for incanon's prompts, ``"paper"`` for the paper's structure),
``embedder`` (embedding strategies; a spec or an ``Embedder``), ``protocol`` (``paper``: the
live session as the reference has it, below), ``prompts_from`` (a folder in the reference
repository's ``prompt/`` layout whose texts are used as they are: :mod:`..refprompts`).

The live session. incanon always shows the last lines of the current session outside retrieval.
The reference instead stores the session so far as one more document (a whole-session
document, or for summaries the raw text until the summary is written; for utterances each line
as it is heard), which then competes with the earlier ones for the top k; the oracle sees only
its evidence. Under ``protocol="paper"`` the strategies do the same: no lines outside
retrieval, and session strategies keep a *partial* unit for the session so far, replaced at each
utterance and by the finished unit when the session ends (a late update drops it, as the
reference pops it).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from incanon.agents.base import Agent, CallRecord, CharacterAt, Reply, Turn
from incanon.bench.dialsim.context import history_budget
from incanon.bench.dialsim.dates import spoken
from incanon.bench.dialsim.formats import check_format, strip_choices
from incanon.bench.dialsim.promptsets import template_name
from incanon.bench.dialsim.questions import MARKERS
from incanon.bench.dialsim.refprompts import ReferencePrompts
from incanon.bench.dialsim.script import DialSession, Line
from incanon.llmout import json_objects
from incanon.models.types import ChatModel, GenerationParams, Message

PAPER_SAMPLING = {"temperature": 0.2, "top_p": 0.1}
"""The reference's sampling for answer and summary calls (``gpt_inference``'s defaults)."""

DEFAULT_CONTEXT_TOKENS: int | None = None
"""None: the model's context size (minus the reference's 500-token reserve)."""


def estimate_tokens(text: str) -> int:
    """Tokens of ``text`` by incanon's one token counter (:mod:`incanon.tokens`)."""
    from incanon.tokens import count_tokens

    return count_tokens(text)


@dataclass(frozen=True)
class Unit:
    """One stored piece of memory."""

    order: int
    """Insertion order (story order)."""
    session: str
    date: str
    text: str


@dataclass
class Recall:
    """What ``retrieve`` found for one question: earlier memory and the live conversation."""

    units: list[Unit]
    current: list[str]
    details: dict[str, Any] = field(default_factory=dict)


class MemoryAgent(Agent):
    """Base of the DialSim memory strategies (see the module docstring)."""

    strategy: ClassVar[str] = ""
    default_k: ClassVar[int] = 10
    drops_late_lines: ClassVar[bool] = False
    """True when memory is kept per utterance: a late update loses the line from the live
    conversation too (the reference's utterance history drops it for good)."""
    retrieves: ClassVar[bool] = True
    """False for the Base LLM (recent context): the paper's prompt then says "dialogue history"."""

    def __init__(self, model: ChatModel, *, answer_format: str = "mc", k: int | None = None,
                 context_tokens: int | None = DEFAULT_CONTEXT_TOKENS, constrain_choices: bool = False,
                 prompt_set: str = "", protocol: str = "incanon", prompts_from: str | None = None,
                 **options: Any) -> None:
        super().__init__(model, **options)
        self.paper = protocol == "paper"
        if self.paper and "params" not in options:
            self.params = self.params.model_copy(update=PAPER_SAMPLING)
        self.reference = ReferencePrompts(prompts_from) if prompts_from else None
        self._partial: int | None = None
        """Index in ``units`` of the live session's partial unit (paper protocol), if any."""
        self.answer_format = check_format(answer_format)
        self.k = k or self.default_k
        self.context_tokens, self.context_source = history_budget(model, context_tokens)
        self.constrain_choices = constrain_choices
        self.prompt_set = prompt_set
        self.current: list[Line] = []
        self.current_session: str | None = None
        self.units: list[Unit] = []
        self.reset()

    # -- memory hooks ----------------------------------------------------------------------
    def reset(self) -> None:
        """Forget everything (a new simulation)."""
        self.current, self.current_session, self.units = [], None, []
        self._partial = None
        self._numbers: dict[str, int] = {}
        self._last: tuple[str, int] | None = None
        self._reset()

    def session_number(self, session: str) -> int:
        """The reference's ``Session #n`` of a session heard (paper protocol's headers): the
        sessions of one date in a row count from 1."""
        return self._numbers.get(session, 1)

    def _number(self, line: Line) -> None:
        if line.session in self._numbers:
            return
        number = self._last[1] + 1 if self._last is not None and self._last[0] == line.date else 1
        self._numbers[line.session] = number
        self._last = (line.date, number)

    def mark(self) -> tuple[int, int, str | None]:
        """The memory's state before an update (see ``rollback``). A partial unit is not part of
        it: the update replaces it, so a late update leaves none (the reference pops it)."""
        units = len(self.units) - (1 if self._has_partial() else 0)
        return units, len(self.current), self.current_session

    def _has_partial(self) -> bool:
        return self._partial is not None and self._partial == len(self.units) - 1

    def drop_partial(self) -> None:
        """Take the live session's partial unit out of memory (and its index)."""
        if self._has_partial():
            del self.units[-1]
            self._truncate(len(self.units))
        self._partial = None

    def put_partial(self, unit: Unit, indexed_text: str | None = None) -> None:
        """Store ``unit`` (the session so far) in place of the previous partial unit."""
        self.drop_partial()
        self._add_unit(unit, indexed_text)
        self._partial = len(self.units) - 1

    def _add_unit(self, unit: Unit, indexed_text: str | None = None) -> None:
        """Store one unit (strategies with an index add it there too)."""
        self.units.append(unit)

    def rollback(self, mark: tuple[int, int, str | None]) -> None:
        """Undo the updates since ``mark``: what they stored is dropped and never retrieved."""
        units, current, session = mark
        del self.units[units:]
        self._truncate(units)
        if self.drops_late_lines and self.current_session == session:
            del self.current[current:]

    def _truncate(self, size: int) -> None:
        """Cut the strategy's index back to its first ``size`` units."""

    async def observe(self, line: Line) -> None:
        """Hear one utterance."""
        if line.session != self.current_session:
            self.current, self.current_session = [], line.session
            self._number(line)
        self.current.append(line)
        await self._observe(line)

    async def end_session(self, session: DialSession) -> None:
        """The session is over: strategies that store whole sessions (or summaries) do it now."""
        self.drop_partial()
        await self._end_session(session, list(self.current))
        self.current, self.current_session = [], None

    def begin_session(self, session: DialSession) -> None:
        """A session is about to be heard (its lines come one by one through ``observe``); only
        the paper protocol's oracle looks at it whole."""

    async def warm_up(self, *, model: bool = True) -> None:
        """Load what loads on first use (a local model, an embedder, the token counter, the
        index's query path) before the clock starts; ``model=False`` sends no call to the model."""
        if model:
            await self.model.generate([Message(role="user", content="Hello.")], GenerationParams(max_tokens=1))
        self.warm_retrieval()

    def warm_retrieval(self) -> None:
        """Run what retrieval runs, once, outside the memory: the first question then does not
        pay for loading the token counter's vocabulary (0.2-1 s) or the index's first query."""
        estimate_tokens("Warm up the token counter.")
        self._warm_index()

    def _warm_index(self) -> None:
        """Query a throwaway index of the strategy's kind (the memory itself is not touched)."""

    def _reset(self) -> None:
        pass

    async def _observe(self, line: Line) -> None:
        pass

    async def _end_session(self, session: DialSession, lines: list[Line]) -> None:
        pass

    @abstractmethod
    def recall(self, query: str, evidence: Sequence[str], budget: int) -> list[Unit]:
        """Earlier memory for ``query`` (best first) within ``budget`` tokens."""

    def template(self, step: str) -> str:
        """The prompt template of ``step`` (``answer``, ``summary``) in this agent's prompt set."""
        return template_name(step, self.prompt_set)

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

    def query(self, turn: Turn) -> str:
        """What retrieval searches with: the asker and the question, without its choices (the
        reference's ``f'{char_ask}: {question}'``)."""
        return f"{turn.speaker}: {strip_choices(turn.text)}"

    def retrieve(self, who: CharacterAt, turn: Turn) -> Recall:
        """Earlier memory and the live conversation for the question ``turn``. ``Turn.about``
        may carry the comma-separated evidence session ids (only the oracle reads them)."""
        evidence = [e for e in (turn.about or "").split(",") if e]
        # Paper protocol: the live session is in memory (or, for the oracle, not shown at all).
        current = [] if self.paper else self._current_lines(self.context_tokens // 4)
        budget = self.context_tokens - sum(estimate_tokens(c) for c in current)
        units = self.recall(self.query(turn), evidence, budget)
        return Recall(units, current, {"strategy": self.strategy, "retrieved": len(units),
                                       "current_lines": len(current), "budget_tokens": self.context_tokens})

    async def answer(self, who: CharacterAt, turn: Turn, recall: Recall, *, question_text: str = "",
                     options: Sequence[str] = ()) -> Reply:
        """The model's answer to ``turn`` from ``recall`` (``question_text`` and ``options``: the
        bare question and its choices, for prompt sets that lay the choices out themselves)."""
        date = who.time_label or spoken(str(who.position))
        if self.reference is not None:
            prompt = self.reference.answer(
                answer_format=self.answer_format, retrieval=self.retrieves, date=date,
                history=[u.text for u in recall.units] + list(recall.current), asker=turn.speaker,
                question=question_text or strip_choices(turn.text), options=list(options), chatbot=who.character,
                joined=self.paper and self.strategy == "oracle")
        else:
            prompt = self.prompts.render(
                self.template("answer"), character=who.character, date=date,
                history=[u.text for u in recall.units], current=recall.current, asker=turn.speaker, question=turn.text,
                question_text=question_text or strip_choices(turn.text), options=list(options),
                answer_format=self.answer_format, retrieval=self.retrieves)
        calls: list[CallRecord] = []
        messages = [Message(role="user", content=prompt)]
        text = await self._call("answer", messages, calls, self._params())
        if self.answer_format == "mc" and self.constrain_choices:
            text = _choice(text)
        return Reply(text=text, method=self.name, calls=calls,
                     context=[f"{u.session}#{u.order}" for u in recall.units], details=recall.details)

    async def respond(self, who: CharacterAt, dialogue: Sequence[Turn]) -> Reply:
        """Answer the last turn (the question) from memory: ``retrieve`` then ``answer``."""
        turn = dialogue[-1]
        return await self.answer(who, turn, self.retrieve(who, turn))


def _choice(text: str) -> str:
    value = next((o["answer"] for o in json_objects(text) if "answer" in o), None)
    return value if isinstance(value, str) else text
