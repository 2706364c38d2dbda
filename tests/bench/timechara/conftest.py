"""Fixtures for the TimeChara tests: the sample world in a canon store, and a scripted helper."""

from __future__ import annotations

from pathlib import Path

import pytest

from incanon.canon import CanonStore
from incanon.sample import sample_world

from timechara_helpers import helper_model


@pytest.fixture(scope="session")
def sample_store_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("timechara") / "canon"
    with CanonStore.open(path) as store:
        store.import_world(sample_world())
    return path


@pytest.fixture(scope="session")
def mini_store_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample world cut to its first chapter (3 scenes, 3 chunks): cheap to index for retrieval."""
    world = sample_world()
    keep = {s.id for s in world.scenes if s.position.startswith("1-1-")}
    mini = world.model_copy(update={
        "scenes": [s for s in world.scenes if s.id in keep],
        "chunks": [c for c in world.chunks if c.scene in keep],
        "facts": [], "relations": [], "entities": [], "probes": [],
    })
    path = tmp_path_factory.mktemp("timechara-mini") / "canon"
    with CanonStore.open(path) as store:
        store.import_world(mini)
    return path


@pytest.fixture
def store(sample_store_dir: Path):
    canon = CanonStore.open(sample_store_dir)
    yield canon
    canon.close()


@pytest.fixture
def helper():
    return helper_model()
