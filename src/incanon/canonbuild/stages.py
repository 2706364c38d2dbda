"""The stages of ``canon build`` after the store: the graph and the chunk vectors.

Both run on the work as stored, with the build's one helper (:class:`BuildHelper`) and its one
embedder (:class:`BuildEmbedder`, so a chunk the graph embedded is not embedded again for the
canon's vectors), and both say how far they are while they run.
"""

from __future__ import annotations

import asyncio
from typing import Any

from incanon.canon.store import CanonStore
from incanon.canonbuild.embedding import BATCH, BuildEmbedder
from incanon.canonbuild.guard import BuildHelper
from incanon.canonbuild.progress import Progress, Say
from incanon.templates import PromptLibrary


def graph_stage(canon: CanonStore, work: str, helper: BuildHelper, prompts: PromptLibrary, *, concurrency: int,
                embedder: BuildEmbedder | None, say: Say) -> dict[str, Any]:
    """The RoleRAG graph of the work's chunks (only what is new since the last build)."""
    from incanon.graph import GraphBuilder, GraphConfig, canon_chunks

    chunks = canon_chunks(canon, work)
    say(f"graph: extracting entities and relations from {len(chunks)} chunks (RoleRAG pipeline)")
    progress = Progress(say, "graph")
    helper.progress = None  # the graph counts its own phases (chunks, calls, vectors)
    # The build's one embedder for the graph too: `--embedder none` embeds nothing here either.
    builder = GraphBuilder(canon, work, helper, embedder=embedder if embedder is not None else "none",
                           config=GraphConfig(concurrency=concurrency), prompts=prompts,
                           progress=lambda what, done, total: progress.update(done, total, what))

    async def run() -> Any:
        async with progress.ticking():
            return await builder.add(chunks)

    try:
        report = asyncio.run(run())
    finally:
        builder.close()
    helper.check()
    # A failed chunk was tried, not extracted: only what the helper answered usably counts.
    return {**report.graph, "chunks_tried": report.chunks_extracted,
            "chunks_extracted": report.chunks_extracted - len(report.failed),
            "chunks_failed": len(report.failed), "chunks_empty": len(report.empty),
            "failed_chunks": [{"chunk": i.chunk, "note": i.note[:300]} for i in report.failed]}


def vector_stage(canon: CanonStore, work: str, embedder: BuildEmbedder, *, say: Say) -> dict[str, Any]:
    """The canon's chunk vectors (those still missing), committed every :data:`BATCH` chunks."""
    from incanon.retrieval.index import index_chunks

    say(f"vectors: embedding the chunks with {embedder.name}")
    progress = Progress(say, "vectors")
    done = index_chunks(canon, work, embedder, batch_size=BATCH,
                        progress=lambda n, todo: progress.update(n, todo, "chunks embedded"))
    return {"embedder": done.embedder, "embedded": done.embedded, "already": done.already,
            "computed": embedder.embedded, "reused": embedder.reused}


__all__ = ["graph_stage", "vector_stage"]
