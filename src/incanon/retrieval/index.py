"""Embedding a work's chunks into the canon store, incrementally.

Only chunks that have no vector from the embedder yet are embedded, in batches, so re-running
after adding chunks (or after an interrupted run) costs only the new ones. Vectors are stored
under the embedder's ``name``; a retriever searches with the same name.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass

import numpy as np

from incanon.canon.store import CanonStore
from incanon.errors import InputError, NotFoundError
from incanon.slowsteps import slow_step
from incanon.models.types import Embedder

DEFAULT_BATCH = 64


@dataclass(frozen=True)
class IndexReport:
    """What one indexing pass did."""

    work: str
    embedder: str
    total: int
    """Chunks in the work."""
    embedded: int
    """Chunks embedded by this pass."""
    batches: int
    """Embedder calls made."""

    @property
    def already(self) -> int:
        """Chunks that already had a vector."""
        return self.total - self.embedded


def embedded_chunk_ids(store: CanonStore, work: str, embedder_name: str) -> set[str]:
    """Ids of the work's chunks that have a vector from ``embedder_name``."""
    try:
        return set(store.vectors(work, "chunk", embedder_name).ids)
    except NotFoundError as exc:
        if "no chunk vectors" in str(exc):
            return set()
        raise


log = logging.getLogger(__name__)


def index_chunks(
    store: CanonStore, work: str, embedder: Embedder, *, batch_size: int = DEFAULT_BATCH,
    progress: Callable[[int, int], None] | None = None,
) -> IndexReport:
    """Embed (as passages) every chunk of ``work`` that lacks a vector from ``embedder``.

    Each batch is written as soon as it is embedded, so an interrupted pass keeps its work.
    ``progress(done, todo)`` is called before the first batch and after each one; a caller
    that passes it reports progress itself (the notice below is not logged then).
    """
    if batch_size <= 0:
        raise InputError(f"batch size must be positive, got {batch_size}")
    chunks = store.chunks(work)
    have = embedded_chunk_ids(store, work, embedder.name)
    todo = [c for c in chunks if c.id not in have]
    if progress is not None:
        progress(0, len(todo))
    batches = done = 0
    # The first retrieval over a work embeds all of it (minutes for a book on a small machine):
    # past a few seconds, say so and how far it is, rather than wait in silence.
    what = f"embedding {len(todo)} chunks of {work} with {embedder.name} for retrieval (once; stored in the canon store)"
    told = slow_step(what, status=lambda: f"{done}/{len(todo)} chunks") if progress is None and todo else nullcontext()
    with told:
        for start in range(0, len(todo), batch_size):
            batch = todo[start:start + batch_size]
            vectors = np.asarray(embedder.embed([c.text for c in batch], kind="passage"), dtype=np.float32)
            store.put_vectors(work, "chunk", [c.id for c in batch], embedder.name, vectors)
            batches += 1
            done = start + len(batch)
            if progress is not None:
                progress(done, len(todo))
    return IndexReport(work=work, embedder=embedder.name, total=len(chunks), embedded=len(todo), batches=batches)
