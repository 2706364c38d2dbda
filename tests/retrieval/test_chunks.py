import datetime as dt

from incanon.canon import Axis, CanonStore, Position
from incanon.retrieval import ChunkRetriever, end_of_story, within

from .counting import CountingEmbedder

FIRE = "How did the lighthouse burn down?"


def _positions(found):
    return [c.position for c in found]


def test_cutoff_never_returns_a_chunk_after_the_characters_position(store: CanonStore, embedder):
    retriever = ChunkRetriever(store, embedder)
    for name, at in [("Ada", "1"), ("Ada", "2-2"), ("Bram", "2-1"), ("Cara", "3-1")]:
        scope = store.scope("lamps", name, at)
        found = retriever.retrieve(FIRE, scope, k=6, cutoff=True)
        assert found, (name, at)
        assert all(p <= scope.at for p in _positions(found)), (name, at, _positions(found))


def test_without_cutoff_the_whole_work_is_searched_future_included(store: CanonStore, embedder):
    retriever = ChunkRetriever(store, embedder)
    scope = store.scope("lamps", "Ada", "1")
    found = retriever.retrieve(FIRE, scope, k=6, cutoff=False)
    assert len(found) == 6
    assert found[0].id in {"c6", "c7"}  # the fire itself, in book 3
    assert any(p > scope.at for p in _positions(found))
    cut = retriever.retrieve(FIRE, scope, k=6, cutoff=True)
    assert {c.id for c in cut} == {"c1", "c2", "c3"}  # everything book 1 holds


def test_results_are_best_first_with_texts_and_k_is_respected(store: CanonStore, embedder):
    retriever = ChunkRetriever(store, embedder)
    scope = store.scope("lamps", "Bram", "3")
    found = retriever.retrieve("the storm snapped the ferry ropes", scope, k=3)
    assert len(found) == 3 and found[0].id == "c4"
    scores = [c.score for c in found]
    assert scores == sorted(scores, reverse=True)
    texts = {c.id: c.text for c in store.chunks("lamps")}
    assert all(c.text == texts[c.id] for c in found)
    assert found[0].to_dict()["position"] == "2-1-1"


def test_work_is_indexed_once_on_first_use(store: CanonStore, embedder):
    counting = CountingEmbedder(embedder)
    retriever = ChunkRetriever(store, counting)
    scope = store.scope("lamps", "Ada", "2-2")
    retriever.retrieve("harbour wall", scope)
    retriever.retrieve("harbour lamp", scope, cutoff=False)
    assert counting.passages() == 8
    assert [kind for kind, _ in counting.calls].count("query") == 2


def test_within_applies_the_scopes_time_and_witness_rules(store: CanonStore, embedder):
    retriever = ChunkRetriever(store, embedder)
    everything = retriever.retrieve("harbour", store.scope("lamps", None, "3"), k=8)
    assert len(everything) == 8
    timed = within(store.scope("lamps", "Ada", "2-2"), everything)
    assert {c.id for c in timed} == {"c1", "c2", "c3", "c4", "c5"}
    witnessed = within(store.scope("lamps", "Ada", "2-2", witnessed_only=True), everything)
    assert {c.id for c in witnessed} == {"c1", "c2", "c5"}  # c3 and c4 are scenes Ada missed
    assert [c.id for c in witnessed] == [c.id for c in everything if c.id in {"c1", "c2", "c5"}]


def test_end_of_story_is_after_every_position():
    assert end_of_story(Axis.CHAPTER) > Position.parse("2047-999-999")
    assert end_of_story(Axis.DATE) >= Position.from_date(dt.date(9999, 12, 31))


def test_a_work_without_chunks_retrieves_nothing_instead_of_failing(tmp_path):
    # A CoSER book imported from its released files has scenes and dialogue but no text chunks:
    # the retrieval methods (in-canon, the chat default, among them) must still answer.
    from incanon.canon import World
    from incanon.graph import HashEmbedder

    world = World.model_validate({
        "work": {"id": "bare", "title": "Bare", "axis": "chapter"},
        "characters": [{"name": "Ada", "first_position": "1-1-1"}],
        "scenes": [{"id": "1-1-1", "position": "1-1-1", "participants": ["Ada"]}],
    })
    with CanonStore.open(tmp_path / "canon") as canon:
        canon.import_world(world)
        retriever = ChunkRetriever(canon, HashEmbedder())
        scope = canon.scope("bare", "Ada", "1-1-1")
        assert retriever.retrieve("anything", scope, k=6) == []
        assert retriever.retrieve("anything", scope.witnessed_view(), k=6, cutoff=False) == []
