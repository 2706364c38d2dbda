"""Fixtures of the RoleRAG tests: the sample world with its graph built offline (oracle
extraction, trigram embedder), shared by the session."""

from __future__ import annotations

import asyncio

import pytest

from incanon.canon import CanonStore
from incanon.graph import GraphConfig, HashEmbedder, build_graph, canon_chunks, oracle_model
from incanon.sample import sample_world


@pytest.fixture(scope="session")
def world():
    return sample_world()


@pytest.fixture(scope="session")
def embedder():
    return HashEmbedder()


@pytest.fixture(scope="session")
def graph_store(tmp_path_factory, world, embedder):
    store = CanonStore.open(tmp_path_factory.mktemp("rolerag") / "canon")
    store.import_world(world)
    chunks = canon_chunks(store, world.work.id)
    model = oracle_model(world, {c.text: c.position for c in chunks})
    asyncio.run(build_graph(store, world.work.id, model, chunks, embedder=embedder,
                            config=GraphConfig(knn_threshold=0.75)))
    yield store
    store.close()
