from __future__ import annotations

from pathlib import Path

import pytest

from incanon.canon import CanonStore
from incanon.sample import SAMPLE_WORK_ID, sample_world


@pytest.fixture(scope="module")
def sample_store(tmp_path_factory: pytest.TempPathFactory):
    """The sample world in a store shared by a module's tests (they only read it)."""
    store = CanonStore.open(tmp_path_factory.mktemp("cards") / "canon")
    store.import_world(sample_world())
    yield store
    store.close()


@pytest.fixture
def fresh_store(tmp_path: Path):
    store = CanonStore.open(tmp_path / "imported")
    yield store
    store.close()


WORK = SAMPLE_WORK_ID
