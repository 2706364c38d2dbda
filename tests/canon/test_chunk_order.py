"""Chunk search in story order gives exactly what the SQL filter of a scope allows: same hits, same
scores, for every character and position of the sample world, witnessed or not."""

from __future__ import annotations

import numpy as np
import pytest

from incanon.canon import CanonStore
from incanon.canon.vectors import VectorKind, search
from incanon.sample import sample_world


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory):
    s = CanonStore.open(tmp_path_factory.mktemp("order") / "canon")
    world = sample_world()
    s.import_world(world)
    rng = np.random.default_rng(3)
    ids = [c.id for c in world.chunks]
    s.put_vectors("lanterns", "chunk", ids, "rand", rng.normal(size=(len(ids), 16)).astype(np.float32))
    yield s
    s.close()


@pytest.mark.parametrize("witnessed", [False, True])
def test_ordered_search_equals_the_sql_filtered_search(store: CanonStore, witnessed: bool) -> None:
    rng = np.random.default_rng(5)
    checked = 0
    for character in store.characters("lanterns")[:4]:
        for at in ("1-1-1", "1-2", "1-3", "2-2-1", "2-4", "3"):
            scope = store.scope("lanterns", character.name, at)
            query = rng.normal(size=16).astype(np.float32)
            got = [(h.item.id, round(h.score, 5)) for h in scope.search_chunks(query, "rand", k=6,
                                                                                witnessed_only=witnessed)]
            sql, params = scope._chunk_cond(witnessed)
            rows = search(scope._conn, scope._cache, scope._wid, VectorKind.CHUNK, "rand", query, 6,
                          f"SELECT k.id FROM chunks k WHERE {sql}", params)
            by_row = {c.row_id: c.id for c in store.chunks("lanterns")}
            assert got == [(by_row[r], round(s, 5)) for r, s in rows], (character.name, at)
            checked += len(got)
    assert checked > 0


def test_new_vectors_are_seen_at_once(store: CanonStore) -> None:
    scope = store.scope("lanterns", None, "3")
    first = store.chunks("lanterns")[0]
    target = np.zeros(16, dtype=np.float32)
    target[0] = 1.0
    store.put_vectors("lanterns", "chunk", [first.id], "rand", target[None, :])
    top = store.scope("lanterns", None, "3").search_chunks(target, "rand", k=1)
    assert top[0].item.id == first.id and top[0].score == pytest.approx(1.0)
    assert scope.search_chunks(target, "rand", k=1)[0].item.id == first.id  # generation moved: reloaded
