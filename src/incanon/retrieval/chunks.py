"""Dense retrieval of source chunks, with or without the knowledge-scope cut-off.

``cutoff=True`` searches through the character's ``KnowledgeScope``: only chunks at or before
the character's position (and, if the scope says so, only witnessed scenes) are even scored.
``cutoff=False`` searches the whole work as the omniscient reader: TimeChara's naive RAG
baseline, which can hand the agent the future; that is what it exists to show.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import numpy as np

from incanon.canon.position import Axis, Position, end_of_story  # noqa: F401  (re-exported)
from incanon.canon.scope import KnowledgeScope
from incanon.canon.store import CanonStore
from incanon.models.types import Embedder
from incanon.retrieval.index import DEFAULT_BATCH, IndexReport, index_chunks

DEFAULT_K = 6
"""TimeChara retrieves up to six paragraphs."""

@dataclass(frozen=True)
class RetrievedChunk:
    """One retrieved chunk and its cosine similarity to the query."""

    id: str
    text: str
    score: float
    position: Position
    scene: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form (position as a string)."""
        return {"id": self.id, "position": str(self.position), "score": round(self.score, 4),
                "scene": self.scene}


def within(scope: KnowledgeScope, chunks: list[RetrievedChunk]) -> list[RetrievedChunk]:
    """The chunks ``scope`` allows, in the given order: at or before its position and, when the
    scope keeps to witnessed scenes, what the character may read. The decision is the
    character's knowledge (``KnowledgeScope.allows_chunk``); this only filters a list by it."""
    return [c for c in chunks if scope.allows_chunk(c)]


class ChunkRetriever:
    """Top-k chunks for a query, as a character at a position sees them (or as anyone would).

    The work is indexed on first use (only chunks without a vector are embedded); call
    ``index`` yourself to control when that cost is paid.
    """

    def __init__(self, store: CanonStore, embedder: Embedder, *, batch_size: int = DEFAULT_BATCH,
                 auto_index: bool = True) -> None:
        self.store = store
        self.embedder = embedder
        self.batch_size = batch_size
        self.auto_index = auto_index
        self._indexed: set[str] = set()
        self._empty: set[str] = set()
        """Works found with no chunk at all (a book imported from summaries and dialogue only)."""

    def index(self, work: str) -> IndexReport:
        """Embed the work's chunks that lack a vector from this retriever's embedder."""
        report = index_chunks(self.store, work, self.embedder, batch_size=self.batch_size)
        self._indexed.add(work)
        if report.total == 0:
            self._empty.add(work)
        else:
            self._empty.discard(work)
        return report

    def omniscient(self, scope: KnowledgeScope) -> KnowledgeScope:
        """The whole-work scope of the omniscient reader, for the work of ``scope``."""
        return self.store.scope(scope.work.id, None, end_of_story(scope.work.axis))

    async def aretrieve(self, query: str, scope: KnowledgeScope, k: int = DEFAULT_K, *,
                        cutoff: bool = True) -> list[RetrievedChunk]:
        """:meth:`retrieve` for a coroutine: the query is embedded in a worker thread, so the
        event loop stays free and a cancelled caller (a client that went away) stops waiting at
        once; an embedding still queued for the thread pool is then never run."""
        work = scope.work.id
        if self.auto_index and work not in self._indexed:
            self.index(work)
        if work in self._empty:
            return []
        aembed = getattr(self.embedder, "aembed", None)
        if aembed is not None:
            vector = (await aembed([query], kind="query"))[0]
        else:
            vector = await asyncio.to_thread(lambda: self.embedder.embed([query], kind="query")[0])
        return self.retrieve(query, scope, k, cutoff=cutoff, vector=vector)

    def retrieve(self, query: str, scope: KnowledgeScope, k: int = DEFAULT_K, *,
                 cutoff: bool = True, vector: np.ndarray | None = None) -> list[RetrievedChunk]:
        """The ``k`` chunks most similar to ``query``, best first.

        ``cutoff``: only what ``scope`` allows; otherwise anything in the scope's work.
        """
        work = scope.work.id
        if self.auto_index and work not in self._indexed:
            self.index(work)
        if work in self._empty:
            # No text to search: the store has no vector set to read either, and "nothing
            # found" is the honest answer (not an error about missing vectors).
            return []
        searched = scope if cutoff else self.omniscient(scope)
        if vector is None:
            vector = self.embedder.embed([query], kind="query")[0]
        hits = searched.search_chunks(vector, self.embedder.name, k)
        return [
            RetrievedChunk(id=h.item.id, text=h.item.text, score=h.score, position=h.item.position,
                           scene=h.item.scene)
            for h in hits
        ]
