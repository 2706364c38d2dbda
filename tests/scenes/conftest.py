"""Fixtures of the scene tests: the Jekyll-like world, the sample world, scripted models."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from incanon.canon import CanonStore
from incanon.graph import HashEmbedder
from incanon.models import ScriptedModel
from incanon.sample import sample_world
from incanon.scenes import SceneSession

from tests.canon.secret_world import secret_world

NEUTRAL = "I would rather not say."


@pytest.fixture()
def vane(tmp_path: Path) -> Iterator[CanonStore]:
    """The Double Physician: Aurel Vane is secretly Silas Crane; Matthias Ord learns it at 1-4-1."""
    store = CanonStore.open(tmp_path / "canon")
    store.import_world(secret_world())
    yield store
    store.close()


@pytest.fixture(scope="module")
def lanterns(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CanonStore]:
    """The sample world (read only by the tests that share it)."""
    store = CanonStore.open(tmp_path_factory.mktemp("lanterns") / "canon")
    store.import_world(sample_world())
    yield store
    store.close()


def scripted(*rules: tuple[str, str], default: str = NEUTRAL) -> ScriptedModel:
    """A scripted model: the given rules (matched on the last message), else ``default``."""
    return ScriptedModel(list(rules), default=default, name="scripted-scene")


def scene(store: CanonStore, characters: list[str], at: str, model: ScriptedModel | None = None,
          **kwargs) -> SceneSession:
    """A scene on ``store`` with a lexical test embedder (no model file is read)."""
    kwargs.setdefault("order", "round-robin")
    return SceneSession(store, characters=characters, at=at, model=model or scripted(), embedder=HashEmbedder(),
                        **kwargs)


def sent_to(session: SceneSession, name: str) -> list[str]:
    """Every message of every model call made for ``name``'s lines, in order."""
    return [m.content for line in session.lines if line.speaker == name and line.index in session.replies
            for call in session.replies[line.index].calls for m in call.messages]
