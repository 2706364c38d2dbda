"""Shared helpers of the graph and RoleRAG tests: a fast deterministic embedder and a sample
world store with its graph built by the ground-truth oracle."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

from incanon.canon import CanonStore, World
from incanon.graph import GraphConfig, build_graph, canon_chunks, oracle_model

_WORD = re.compile(r"\w+")


class HashEmbedder:
    """Bag of character trigrams of the lower-cased words, hashed into 256 dimensions.

    Names sharing letters score high, unrelated names near zero: enough for the candidate and
    search logic, at no cost (the real embedder is exercised by the slow tests)."""

    name = "hash256"
    dim = 256

    def __init__(self) -> None:
        self.calls = 0

    def embed(self, texts: Sequence[str], kind: str = "passage") -> np.ndarray:
        self.calls += 1
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            head = text.split(":", 1)[0]  # the name part of "name: description"
            for word in _WORD.findall(head.lower()):
                padded = f"#{word}#"
                for j in range(len(padded) - 2):
                    h = int(hashlib.md5(padded[j:j + 3].encode()).hexdigest()[:8], 16)
                    out[i, h % self.dim] += 1.0
            n = np.linalg.norm(out[i])
            if n:
                out[i] /= n
        return out


FAST = GraphConfig(knn_threshold=0.75)


def sample_store(path, world: World) -> CanonStore:
    store = CanonStore.open(path)
    store.import_world(world)
    return store


async def build_sample_graph(store: CanonStore, world: World, embedder=None, config: GraphConfig = FAST,
                             chunks=None):
    chunks = chunks if chunks is not None else canon_chunks(store, world.work.id)
    model = oracle_model(world, {c.text: c.position for c in canon_chunks(store, world.work.id)})
    report = await build_graph(store, world.work.id, model, chunks, embedder=embedder or HashEmbedder(),
                               config=config)
    return report, model
