"""Fixtures of the audit tests."""

from __future__ import annotations

import pytest

from incanon.canon import CanonStore
from incanon.sample import sample_world
from incanon.testing import FakeOpenAIServer


@pytest.fixture(scope="module")
def lanterns(tmp_path_factory: pytest.TempPathFactory):
    """The sample world in a store of its own, shared by a module's tests."""
    store = CanonStore.open(tmp_path_factory.mktemp("audit") / "canon")
    store.import_world(sample_world())
    yield store
    store.close()


@pytest.fixture
def fake_embedder(monkeypatch):
    """An embedder spec served by a local fake endpoint: fast and offline."""
    monkeypatch.setenv("INCANON_FAKE_KEY", "not-a-secret")
    with FakeOpenAIServer() as server:
        yield f"openai:fake-embed@{server.base_url}?key_env=INCANON_FAKE_KEY"


class WordsEmbedder:
    """An offline embedder of whole texts: hashed word counts in 512 dimensions, so passages
    that share words are close (lexical, deterministic, no model file)."""

    name = "words512"
    dim = 512

    def embed(self, texts, kind: str = "passage"):
        import re
        import zlib

        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in re.findall(r"[a-z]{4,}", text.lower()):
                out[i, zlib.crc32(word.encode()) % self.dim] += 1.0
        return out


@pytest.fixture
def words_embedder() -> WordsEmbedder:
    """See ``WordsEmbedder``."""
    return WordsEmbedder()
