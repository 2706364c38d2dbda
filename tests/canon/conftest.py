from __future__ import annotations

from pathlib import Path

import pytest

from incanon.canon import CanonStore

from .fixtures import harbor_world


@pytest.fixture
def empty_store(tmp_path: Path):
    store = CanonStore.open(tmp_path / "canon")
    yield store
    store.close()


@pytest.fixture
def store(empty_store: CanonStore) -> CanonStore:
    empty_store.import_world(harbor_world())
    return empty_store
