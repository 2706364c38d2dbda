"""Fixtures of the graph tests: the sample world, a store holding it, its graph built offline."""

from __future__ import annotations

import asyncio

import pytest

from incanon.sample import sample_world

from graph_helpers import build_sample_graph, sample_store  # tests/graph is on sys.path


@pytest.fixture(scope="session")
def world():
    return sample_world()


@pytest.fixture
def store(tmp_path, world):
    canon = sample_store(tmp_path / "canon", world)
    yield canon
    canon.close()


@pytest.fixture(scope="session")
def built(tmp_path_factory, world):
    """A store with the sample world's graph (oracle extraction, trigram embedder), shared."""
    canon = sample_store(tmp_path_factory.mktemp("built") / "canon", world)
    report, model = asyncio.run(build_sample_graph(canon, world))
    yield canon, report, model
    canon.close()
