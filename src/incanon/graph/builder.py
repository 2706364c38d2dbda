"""``GraphBuilder``: index a corpus into the work's knowledge graph, incrementally.

    register chunks → extract the pending ones (concurrently, each committed when done)
    → integrate (normalize, merge, summarize, embed) → report

Running it again after an interruption extracts only what is still pending (and retries what
failed); giving it a new document extracts only that document's chunks. Every LLM call goes
through the model given, so a model loaded with a response cache makes re-runs free.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from incanon.canon.store import CanonStore
from incanon.graph.chunking import SourceChunk
from incanon.graph.config import GraphConfig
from incanon.graph.db import GraphDB
from incanon.graph.extract import ChunkExtractor
from incanon.graph.integrate import IntegrationReport, Integrator
from incanon.models.types import ChatModel, Completion, Embedder, GenerationParams, Message
from incanon.templates import PromptLibrary, default_library


GraphProgress = Callable[[str, int, "int | None"], None]
"""``progress(what, done, total)``: ``what`` names the phase (``"chunks extracted"``), ``total``
is None where the phase's size is not known in advance (the integration's helper calls)."""

#: Notes that make an extracted chunk worth a line in the build report.
_WARNINGS = ("reply cut", "reply was cut off", "not one of", "unreadable")


class CountingModel:
    """Counts the calls and tokens that pass through (cache hits included: they are calls
    the pipeline made, whatever they cost)."""

    def __init__(self, inner: ChatModel):
        self.inner = inner
        self.calls = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.on_call: Callable[[], None] | None = None
        """Called after each answered call (progress of a phase whose calls are not known ahead)."""

    @property
    def name(self) -> str:
        return self.inner.name

    def reset(self) -> tuple[int, int, int]:
        out = (self.calls, self.prompt_tokens, self.completion_tokens)
        self.calls = self.prompt_tokens = self.completion_tokens = 0
        return out

    async def generate(self, messages: Sequence[Message], params: GenerationParams | None = None) -> Completion:
        completion = await self.inner.generate(messages, params)
        self.calls += 1
        self.prompt_tokens += completion.prompt_tokens
        self.completion_tokens += completion.completion_tokens
        if self.on_call is not None:
            self.on_call()
        return completion


@dataclass
class ChunkIssue:
    """A chunk that yielded nothing or failed, and why."""

    chunk: str
    status: str
    tokens: int
    note: str


@dataclass
class PhaseCost:
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass
class BuildReport:
    """What one build did."""

    work: str
    chunks_given: int = 0
    chunks_new: int = 0
    chunks_changed: int = 0
    chunks_extracted: int = 0
    corpus_tokens: int = 0
    """Tokens of the chunks extracted by this build."""
    issues: list[ChunkIssue] = field(default_factory=list)
    extraction: PhaseCost = field(default_factory=PhaseCost)
    integration_cost: PhaseCost = field(default_factory=PhaseCost)
    integration: IntegrationReport = field(default_factory=IntegrationReport)
    graph: dict[str, int] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)
    """Sources left out because their content is already indexed under another source."""

    @property
    def empty(self) -> list[ChunkIssue]:
        return [i for i in self.issues if i.status == "empty"]

    @property
    def failed(self) -> list[ChunkIssue]:
        return [i for i in self.issues if i.status == "failed"]

    @property
    def warned(self) -> list[ChunkIssue]:
        """Chunks extracted with a warning: a reply cut at the token limit, impossible types."""
        return [i for i in self.issues if i.status == "warning"]

    @property
    def nothing_extracted(self) -> bool:
        """Every chunk this build extracted failed or yielded nothing (and it extracted some)."""
        return self.chunks_extracted > 0 and len(self.empty) + len(self.failed) == self.chunks_extracted

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["integration"]["normalization"] = self.integration.normalization.to_dict()
        return data


def _embedder(spec: Embedder | str | None) -> Embedder | None:
    if spec is None or not isinstance(spec, str):
        return spec
    if spec == "none":  # no vectors: aliases merge by name alone, chunks stay unembedded
        return None
    from incanon.models import load_embedder

    return load_embedder(spec)


class GraphBuilder:
    """Builds and extends the knowledge graph of ``work`` in ``canon``."""

    def __init__(self, canon: CanonStore, work: str, model: ChatModel, *,
                 embedder: Embedder | str | None = None, config: GraphConfig | None = None,
                 prompts: PromptLibrary | None = None, progress: GraphProgress | None = None):
        self.config = config or GraphConfig()
        self.progress = progress
        """Told of each extracted chunk, integration call and embedded batch (a long build on a
        real book is silent for minutes otherwise)."""
        self.db = GraphDB(canon, work)
        self.model = CountingModel(model)
        self.embedder = _embedder(self.config.embedder if embedder is None else embedder)
        self.prompts = prompts or default_library()

    def close(self) -> None:
        self.db.close()

    async def add(self, chunks: Sequence[SourceChunk], *, retry_empty: bool = False,
                  documents: Sequence[str] = ()) -> BuildReport:
        """Register ``chunks`` (unchanged ones are skipped), extract what is pending, integrate.
        ``documents``: sources given whole, whose chunks missing from ``chunks`` are removed."""
        report = BuildReport(work=self.db.work.id, chunks_given=len(chunks))
        new, changed = self.db.register_chunks(chunks, documents)
        report.skipped = list(self.db.skipped)
        report.chunks_new, report.chunks_changed = len(new), len(changed)
        if changed:
            await self._rebuild_derived()
        await self._extract(report, retry_empty)
        self.model.reset()
        report.integration = await self._integrator().run()
        report.integration_cost = PhaseCost(*self.model.reset())
        report.graph = self.db.counts()
        self._remember(report)
        return report

    def _integrator(self) -> Integrator:
        progress = self.progress
        if progress is not None:
            progress("helper calls merging and describing entities", 0, None)
            self.model.on_call = lambda: progress("helper calls merging and describing entities", self.model.calls,
                                                  None)
        return Integrator(self.db, self.model, self.embedder, self.config, self.prompts, progress=progress)

    async def integrate(self) -> BuildReport:
        """Integrate what is extracted but not yet in the graph (after a deletion), calling no
        extraction."""
        report = BuildReport(work=self.db.work.id)
        self.model.reset()
        report.integration = await self._integrator().run()
        report.integration_cost = PhaseCost(*self.model.reset())
        report.graph = self.db.counts()
        return report

    async def _extract(self, report: BuildReport, retry_empty: bool) -> None:
        statuses = ["pending", "failed"] + (["empty"] if retry_empty else [])
        todo = self.db.chunk_rows(statuses)
        extractor = ChunkExtractor(self.model, self.config, self.prompts, axis=str(self.db.work.axis))
        gate = asyncio.Semaphore(self.config.concurrency)
        self.model.reset()
        if self.progress is not None:
            self.progress("chunks extracted", 0, len(todo))

        async def one(row_id: int) -> None:
            async with gate:
                chunk = self.db.chunk_text(row_id)
                result = await extractor.extract(chunk)
            self.db.save_extraction(row_id, result.status, result.extraction, result.calls, result.notes)
            report.corpus_tokens += chunk.tokens
            report.chunks_extracted += 1
            if self.progress is not None:
                self.progress("chunks extracted", report.chunks_extracted, len(todo))
            if result.status != "extracted":
                report.issues.append(ChunkIssue(chunk.id, result.status, chunk.tokens, "; ".join(result.notes)))
            elif any(_WARN in n for n in result.notes for _WARN in _WARNINGS):
                warned = [n for n in dict.fromkeys(result.notes) if any(w in n for w in _WARNINGS)]
                report.issues.append(ChunkIssue(chunk.id, "warning", chunk.tokens, "; ".join(warned)))

        await asyncio.gather(*(one(c.row_id) for c in todo))
        report.issues.sort(key=lambda i: i.chunk)
        report.extraction = PhaseCost(*self.model.reset())

    async def _rebuild_derived(self) -> None:
        # A chunk's text changed: its old mentions are gone (cascade), so nodes and edges are
        # re-derived from the stored raw extractions; no chunk is extracted again.
        with self.db.tx():
            self.db.conn.execute("DELETE FROM graph_nodes WHERE work_id = ?", (self.db.wid,))
            self.db.conn.execute("UPDATE graph_chunks SET status = 'extracted' WHERE work_id = ? AND status = "
                                 "'integrated'", (self.db.wid,))

    def _remember(self, report: BuildReport) -> None:
        totals = self.db.meta("totals", {}) or {}
        n = report.integration.normalization
        for key, value in (("extraction_calls", report.extraction.calls),
                           ("integration_calls", report.integration_cost.calls),
                           ("normalization_llm_calls", n.llm_calls), ("corpus_tokens", report.corpus_tokens),
                           ("builds", 1)):
            totals[key] = totals.get(key, 0) + value
        with self.db.tx():
            self.db.set_meta("totals", totals)
            self.db.set_meta("last_build", report.to_dict())


async def build_graph(canon: CanonStore, work: str, model: ChatModel, chunks: Sequence[SourceChunk], **kwargs: Any
                      ) -> BuildReport:
    """One-call form of ``GraphBuilder(...).add(chunks)``."""
    builder = GraphBuilder(canon, work, model, **kwargs)
    try:
        return await builder.add(chunks)
    finally:
        builder.close()
