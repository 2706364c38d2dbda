"""An embedder wrapper that counts what it is asked to embed."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from incanon.models.types import EmbedKind, Embedder


class CountingEmbedder:
    """Delegates to ``inner`` and records every call as (kind, number of texts)."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.calls: list[tuple[str, int]] = []

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed(self, texts: Sequence[str], kind: EmbedKind = "passage") -> np.ndarray:
        self.calls.append((kind, len(texts)))
        return self.inner.embed(texts, kind=kind)

    def passages(self) -> int:
        return sum(n for kind, n in self.calls if kind == "passage")
