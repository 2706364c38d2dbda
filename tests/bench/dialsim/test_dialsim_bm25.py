"""The BM25 memory grows by one document per utterance and is never rebuilt."""

from __future__ import annotations

import random

import bm25s
import numpy as np
import pytest

from incanon.bench.dialsim import IncrementalBM25, RebuildingBM25
from incanon.bench.dialsim.bm25 import build_bm25s

WORDS = "lamp wall gate tide oil crier levy glass kiln barge heron ledger tower light bell chapel provost clerk flood rope".split()


def _docs(n: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 14))) for _ in range(n)]


@pytest.fixture
def index_builds(monkeypatch):
    """Counts every bm25s index build in the test."""
    count = {"n": 0}
    original = bm25s.BM25.index

    def counting(self, *args, **kwargs):
        count["n"] += 1
        return original(self, *args, **kwargs)

    monkeypatch.setattr(bm25s.BM25, "index", counting)
    return count


def test_incremental_scores_equal_a_fresh_bm25s_index_and_nothing_is_rebuilt(index_builds):
    memory = IncrementalBM25()
    docs = _docs(120)
    queries = ["lamp gate", "flood bell rope", "provost ledger clerk ledger", "heron", "absent words"]
    for i, doc in enumerate(docs, start=1):
        memory.add(doc)
        if i % 40 == 0:  # query while the memory grows, as the simulator does
            for q in queries:
                memory.scores(q)
    assert index_builds["n"] == 0, "the incremental memory must never build a bm25s index"

    corpus = [memory.tokenizer.decode([memory.tokens(d, learn=False)])[0] for d in docs]
    fresh = build_bm25s(corpus)
    assert index_builds["n"] == 1
    for q in queries:
        words = [w for w in memory.tokenizer.decode([memory.tokens(q, learn=False)])[0] if w in fresh.vocab_dict]
        expected = fresh.get_scores(words) if words else np.zeros(len(docs))
        np.testing.assert_allclose(memory.scores(q), expected, rtol=1e-5, atol=1e-6)


def test_each_update_touches_only_the_new_documents_terms():
    memory = IncrementalBM25()
    for doc in _docs(300, seed=3):
        before = memory.postings_written
        memory.add(doc)
        assert memory.postings_written - before == len(set(memory.tokens(doc, learn=False)))


def test_the_reference_behaviour_rebuilds_once_per_added_document(index_builds):
    rebuilding = RebuildingBM25()
    for doc in _docs(25):
        rebuilding.add(doc)
    assert rebuilding.builds == 25 and index_builds["n"] == 25
    memory = IncrementalBM25()
    for doc in _docs(25):
        memory.add(doc)
    np.testing.assert_allclose(memory.scores("tide oil"), rebuilding.scores("tide oil"), rtol=1e-5, atol=1e-6)


def test_top_k_is_best_first_positive_and_can_leave_out_the_newest():
    memory = IncrementalBM25()
    for text in ["the lamp is lit", "a gate and a lamp", "nothing to see", "lamp lamp lamp gate"]:
        memory.add(text)
    hits = memory.top_k("lamp gate", 10)
    scores = [score for _, score in hits]
    assert scores == sorted(scores, reverse=True) and all(s > 0 for s in scores)
    assert {doc for doc, _ in hits} == {0, 1, 3}  # "nothing to see" scores 0 and is left out
    assert {doc for doc, _ in memory.top_k("lamp gate", 10, exclude_from=3)} == {0, 1}
    assert len(memory.top_k("lamp gate", 2)) == 2
    assert IncrementalBM25().top_k("lamp", 5) == []


def test_truncating_equals_never_having_added():
    from incanon.bench.dialsim import IncrementalBM25

    docs = ["Jory lights the lamps", "Nell bakes bread at dawn", "the lamps of Harrowmere", "Pell cries the news"]
    grown, fresh = IncrementalBM25(), IncrementalBM25()
    for d in docs:
        grown.add(d)
    grown.truncate(2)
    for d in docs[:2]:
        fresh.add(d)
    assert len(grown) == 2
    assert list(grown.scores("lamps bread")) == list(fresh.scores("lamps bread"))
    grown.add(docs[3])
    fresh.add(docs[3])
    assert list(grown.scores("news lamps")) == list(fresh.scores("news lamps"))
