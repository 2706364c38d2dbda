"""Embedding memory that grows one row at a time (no re-embedding, no rebuild)."""

from __future__ import annotations

import numpy as np

from incanon.bench.dialsim.bm25 import top_k
from incanon.models.types import Embedder


class VectorMemory:
    """Unit vectors of added texts; search by cosine similarity (a dot product)."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self._rows = np.zeros((0, 0), dtype=np.float32)
        self._size = 0

    def __len__(self) -> int:
        return self._size

    def add(self, text: str) -> int:
        """Embed ``text`` as a passage and append it; returns its id."""
        vector = np.asarray(self.embedder.embed([text], kind="passage"), dtype=np.float32)[0]
        if self._size == len(self._rows):
            grown = np.zeros((max(8, 2 * len(self._rows)), len(vector)), dtype=np.float32)
            if self._size:
                grown[: self._size] = self._rows[: self._size]
            self._rows = grown
        self._rows[self._size] = vector
        self._size += 1
        return self._size - 1

    def truncate(self, size: int) -> None:
        """Keep the first ``size`` rows (the newest leave)."""
        self._size = min(self._size, max(0, size))

    def scores(self, query: str) -> np.ndarray:
        if self._size == 0:
            return np.zeros(0, dtype=np.float32)
        q = np.asarray(self.embedder.embed([query], kind="query"), dtype=np.float32)[0]
        return self._rows[: self._size] @ q

    def top_k(self, query: str, k: int, *, exclude_from: int | None = None) -> list[tuple[int, float]]:
        return top_k(self.scores(query), k, exclude_from=exclude_from)
