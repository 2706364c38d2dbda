"""Vectors: storage round trip, validation, and top-k search that never sees past the cut-off."""

from __future__ import annotations

import numpy as np
import pytest

from incanon.canon import CanonStore, VectorKind, World
from incanon.errors import InputError, NotFoundError

from .fixtures import harbor_data

CHUNKS = ["c1", "c2", "c3", "c4", "c5", "c6"]


def _onehot(i: int, dim: int = 8) -> np.ndarray:
    v = np.zeros(dim, dtype=np.float32)
    v[i] = 1.0
    return v


@pytest.fixture
def embedded(store: CanonStore) -> CanonStore:
    # Chunk i points mostly along axis i, a little along axis 7, so every chunk scores > 0
    # against a query on axis 7 and the order is c6 > c5 > ... (later chunks weigh more).
    matrix = np.stack([_onehot(i) + (i + 1) * 0.5 * _onehot(7) for i in range(6)])
    store.put_vectors("harbor", "chunk", CHUNKS, "toy", matrix)
    return store


def test_round_trip(embedded: CanonStore) -> None:
    got = embedded.vectors("harbor", "chunk", "toy", ids=["c3", "c1"])
    assert got.ids == ["c3", "c1"] and got.kind is VectorKind.CHUNK
    assert got.matrix.dtype == np.float32
    np.testing.assert_array_equal(got.matrix[1], _onehot(0) + 0.5 * _onehot(7))
    everything = embedded.vectors("harbor", "chunk", "toy")
    assert everything.ids == CHUNKS and everything.matrix.shape == (6, 8)


def test_blobs_are_float32(embedded: CanonStore) -> None:
    blob = embedded._conn.execute("SELECT vec FROM vectors LIMIT 1").fetchone()[0]
    assert len(blob) == 8 * 4


def test_search_never_returns_a_future_chunk(embedded: CanonStore) -> None:
    query = _onehot(7)
    reader = embedded.scope("harbor", None, "3")
    assert [h.item.id for h in reader.search_chunks(query, "toy", k=3)] == ["c6", "c5", "c4"]
    alice = embedded.scope("harbor", "Alice", "1")
    hits = alice.search_chunks(query, "toy", k=10)
    assert [h.item.id for h in hits] == ["c3", "c2", "c1"]  # c4..c6 are after "end of book 1"
    assert hits[0].score == pytest.approx(1.5 / np.sqrt(1 + 1.5**2))
    assert all(a.score >= b.score for a, b in zip(hits, hits[1:]))
    # Missed scenes' chunks are left out too when witnessed only.
    assert [h.item.id for h in alice.search_chunks(query, "toy", k=10, witnessed_only=True)] == ["c3", "c1"]


def test_search_with_scope_default_witnessed_only(embedded: CanonStore) -> None:
    bob = embedded.scope("harbor", "Bob", "2-3", witnessed_only=True)
    assert [h.item.id for h in bob.search_chunks(_onehot(7), "toy", k=10)] == ["c5", "c3", "c2", "c1"]


def test_top_k_by_cosine(embedded: CanonStore) -> None:
    hits = embedded.scope("harbor", None, "3").search_chunks(_onehot(1), "toy", k=1)
    assert [h.item.id for h in hits] == ["c2"]
    assert hits[0].item.text == "Cara folded the map."
    assert embedded.scope("harbor", None, "3").search_chunks(_onehot(1), "toy", k=0) == []


def test_overwrite_is_seen_by_cached_searches(embedded: CanonStore, tmp_path) -> None:  # type: ignore[no-untyped-def]
    scope = embedded.scope("harbor", None, "3")
    assert scope.search_chunks(_onehot(7), "toy", k=1)[0].item.id == "c6"
    embedded.put_vectors("harbor", "chunk", ["c1"], "toy", (10 * _onehot(7))[None, :])
    assert scope.search_chunks(_onehot(7), "toy", k=1)[0].item.id == "c1"
    # A write through another connection (another process, say) is noticed as well.
    with CanonStore.open(embedded.path) as other:
        other.put_vectors("harbor", "chunk", ["c2"], "toy", 20 * _onehot(7)[None, :])
        other.put_vectors("harbor", "chunk", ["c1"], "toy", _onehot(0)[None, :])
    assert scope.search_chunks(_onehot(7), "toy", k=1)[0].item.id == "c2"


def test_entity_search_respects_first_position(store: CanonStore) -> None:
    names = ["Lighthouse", "harbor guild", "Great Storm"]  # names resolve case-insensitively
    store.put_vectors("harbor", "entity", names, "toy", np.stack([_onehot(0), _onehot(1), _onehot(2) + _onehot(0)]))
    early = store.scope("harbor", "Alice", "1-1")
    assert [h.item.name for h in early.search_entities(_onehot(0), "toy", k=5)] == ["Lighthouse"]
    late = store.scope("harbor", "Alice", "2-3")
    assert [h.item.name for h in late.search_entities(_onehot(0), "toy", k=2)] == ["Lighthouse", "Great Storm"]


def test_several_embedders_and_kinds(embedded: CanonStore) -> None:
    embedded.put_vectors("harbor", "chunk", ["c1"], "other", np.ones((1, 3)))
    embedded.put_vectors("harbor", "scene", ["s1", "s2"], "toy", np.ones((2, 4)))
    embedded.put_vectors("harbor", "fact", ["f1"], "toy", np.ones((1, 4)))
    assert embedded.vectors("harbor", "chunk", "other").matrix.shape == (1, 3)
    assert embedded.vectors("harbor", "scene", "toy").ids == ["s1", "s2"]


@pytest.mark.parametrize(
    "kind, ids, matrix, error, pieces",
    [
        ("chunk", ["c1", "c2"], np.ones((3, 8)), InputError, "expected a matrix of 2 rows"),
        ("chunk", ["c1"], np.ones(8), InputError, "expected a matrix of 1 rows"),
        ("chunk", ["c1"], np.full((1, 8), np.nan), InputError, "NaN"),
        ("chunk", ["c1", "c1"], np.ones((2, 8)), InputError, "unique"),
        ("chunk", ["c1", "zz"], np.ones((2, 8)), NotFoundError, "unknown chunk ids: zz"),
        ("chunk", ["c1"], np.ones((1, 5)), InputError, "have 8 dimensions, these have 5"),
        ("utterance", ["c1"], np.ones((1, 8)), InputError, "unknown vector kind 'utterance'"),
    ],
)
def test_put_validation(embedded: CanonStore, kind, ids, matrix, error, pieces) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(error, match=pieces):
        embedded.put_vectors("harbor", kind, ids, "toy", matrix)


def test_read_errors(embedded: CanonStore) -> None:
    with pytest.raises(NotFoundError, match=r"no chunk vectors from embedder 'nope' \(stored kind/embedder: chunk/toy\)"):
        embedded.vectors("harbor", "chunk", "nope")
    embedded.put_vectors("harbor", "entity", ["Lighthouse"], "toy", np.ones((1, 2)))
    with pytest.raises(NotFoundError, match="no 'toy' vectors for entity ids: Great Storm"):
        embedded.vectors("harbor", "entity", "toy", ids=["Great Storm"])
    with pytest.raises(InputError, match="query vector has 3 dimensions"):
        embedded.scope("harbor", None, "3").search_chunks(np.ones(3), "toy", k=2)


def test_replace_import_drops_vectors(embedded: CanonStore) -> None:
    embedded.import_world(World.model_validate(harbor_data()), replace=True)
    with pytest.raises(NotFoundError):
        embedded.vectors("harbor", "chunk", "toy")
    assert embedded._conn.execute("SELECT COUNT(*) FROM vectors").fetchone()[0] == 0
