import numpy as np
import pytest

from incanon.canon import CanonStore
from incanon.errors import InputError, NotFoundError
from incanon.retrieval import embedded_chunk_ids, index_chunks

from .counting import CountingEmbedder


def test_first_pass_embeds_every_chunk_in_batches_and_second_pass_nothing(store: CanonStore, embedder):
    counting = CountingEmbedder(embedder)
    report = index_chunks(store, "lamps", counting, batch_size=3)
    assert (report.total, report.embedded, report.batches, report.already) == (8, 8, 3, 0)
    assert [n for _, n in counting.calls] == [3, 3, 2]
    assert all(kind == "passage" for kind, _ in counting.calls)
    assert embedded_chunk_ids(store, "lamps", embedder.name) == {f"c{i}" for i in range(1, 9)}

    again = index_chunks(store, "lamps", counting, batch_size=3)
    assert (again.embedded, again.batches, again.already) == (0, 0, 8)
    assert len(counting.calls) == 3


def test_only_chunks_without_a_vector_are_embedded(store: CanonStore, embedder):
    store.put_vectors("lamps", "chunk", ["c1", "c2"], embedder.name,
                      embedder.embed(["a", "b"], kind="passage"))
    counting = CountingEmbedder(embedder)
    report = index_chunks(store, "lamps", counting)
    assert (report.embedded, report.already, report.batches) == (6, 2, 1)
    assert counting.passages() == 6
    # The stored vectors are the passage embeddings of the chunk texts.
    chunk = {c.id: c.text for c in store.chunks("lamps")}
    stored = store.vectors("lamps", "chunk", embedder.name, ["c5"]).matrix[0]
    assert np.allclose(stored, embedder.embed([chunk["c5"]], kind="passage")[0], atol=1e-5)


def test_vectors_of_another_embedder_do_not_count(store: CanonStore, embedder):
    store.put_vectors("lamps", "chunk", ["c1"], "other-embedder", np.ones((1, 4), dtype=np.float32))
    assert embedded_chunk_ids(store, "lamps", embedder.name) == set()
    assert index_chunks(store, "lamps", embedder).embedded == 8


def test_bad_batch_size_and_unknown_work(store: CanonStore, embedder):
    with pytest.raises(InputError, match="batch size"):
        index_chunks(store, "lamps", embedder, batch_size=0)
    with pytest.raises(NotFoundError, match="unknown work"):
        index_chunks(store, "nowhere", embedder)
