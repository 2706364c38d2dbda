"""The embedder wrapper: de-duplicates, batches and caches vectors per (embedder, kind, text)."""

from __future__ import annotations

import asyncio
from typing import Sequence

import numpy as np

from incanon.models.cache import ResponseCache
from incanon.models.embedders import check_kind, normalize
from incanon.models.types import EmbedKind, Embedder


class CachedEmbedder:
    """What ``load_embedder`` returns: the backend behind a cache and a batch size."""

    def __init__(self, inner: Embedder, cache: ResponseCache | None = None, *, batch_size: int = 64):
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, not {batch_size}")
        self.inner = inner
        self.cache = cache
        self.batch_size = batch_size
        self.backend_calls = 0
        """Batches sent to the backend (cache hits send none)."""
        self.embedded_texts = 0
        """Texts the backend embedded."""

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
        """``embed`` in a worker thread, for async callers."""
        return await asyncio.to_thread(self.embed, texts, kind)
