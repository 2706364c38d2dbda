"""Shared helpers of the graph tests: the sample world in a store, its graph built offline."""

from __future__ import annotations

from incanon.canon import CanonStore, World
from incanon.graph import GraphConfig, HashEmbedder, build_graph, canon_chunks, oracle_model

FAST = GraphConfig(knn_threshold=0.75)
"""The trigram embedder's scale: names that share most letters score above 0.75."""


def sample_store(path, world: World) -> CanonStore:
    store = CanonStore.open(path)
    store.import_world(world)
    return store


def oracle_for(store: CanonStore, world: World):
    return oracle_model(world, {c.text: c.position for c in canon_chunks(store, world.work.id)})


async def build_sample_graph(store: CanonStore, world: World, *, embedder=None, config: GraphConfig = FAST,
                             chunks=None, model=None):
    chunks = chunks if chunks is not None else canon_chunks(store, world.work.id)
    model = model or oracle_for(store, world)
    report = await build_graph(store, world.work.id, model, chunks, embedder=embedder or HashEmbedder(),
                               config=config)
    return report, model
