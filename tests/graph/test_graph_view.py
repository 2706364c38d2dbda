"""Reading the graph through a knowledge scope: nothing the story tells after the position."""

from __future__ import annotations

import random

from incanon.canon import Position
from incanon.graph import GraphDB, GraphView, HashEmbedder
from incanon.graph.integrate import joined


def _positions(store):
    keys = sorted({c.position.key for c in store.chunks("lanterns")})
    return [Position.from_key("chapter", k) for k in keys]


def test_full_view_is_complete_and_neighbours_are_heaviest_first(built):
    store, _, _ = built
    view = GraphView.open(store, "lanterns")
    assert view.complete
    wren = view.find("Wren")
    edges = view.edges_of(wren)
    assert edges and [e.weight for e in edges] == sorted((e.weight for e in edges), reverse=True)
    people = view.neighbours(wren, "character", limit=3)
    assert len(people) == 3 and all(n.type == "character" for n, _ in people)
    places = view.neighbours(wren, "location")
    assert all(n.type == "location" for n, _ in places)


def test_random_positions_never_show_a_later_relation_mention_or_description(built):
    store, _, _ = built
    db = GraphDB(store, "lanterns")
    rng = random.Random(7)
    positions = _positions(store)
    characters = [None, "Wren Callow", "Jory Callow", "Ilse Varga"]
    for _ in range(25):
        at = rng.choice(positions)
        who = rng.choice(characters)
        scope = store.scope("lanterns", who, at, witnessed_only=rng.random() < 0.5)
        view = GraphView(db, scope)
        allowed = set(scope.chunk_ids())
        for node_id in view.node_ids():
            node = view.node(node_id)
            assert node.position is None or node.position <= at
            seen = [m for m in db.node_mentions(node_id) if m["chunk_id"] in view.visible_chunks]
            assert seen and all(m["ext_id"] in allowed for m in seen)
            if any(m["chunk_id"] not in view.visible_chunks for m in db.node_mentions(node_id)):
                later = {m["description"] for m in db.node_mentions(node_id)
                         if m["chunk_id"] not in view.visible_chunks} - {m["description"] for m in seen}
                said = " ".join(m["description"] for m in seen)
                assert not any(d and d in node.description and d not in said for d in later)
            for edge in view.edges_of(node_id):
                assert edge.position is not None and edge.position <= at
                visible = [m for m in db.edge_mentions(edge.id) if m["chunk_id"] in view.visible_chunks]
                assert all(m["ext_id"] in allowed for m in visible)
                assert edge.weight == sum(m["strength"] for m in visible)
    db.close()


def test_a_relation_that_begins_later_is_invisible_before(built):
    store, _, _ = built
    early = GraphView.open(store, "lanterns", store.scope("lanterns", "Jory Callow", "1-3"))
    late = GraphView.open(store, "lanterns", store.scope("lanterns", "Jory Callow", "3-4"))
    jory, ilse = late.find("Jory Callow"), late.find("Ilse Varga")
    db = GraphDB(store, "lanterns")
    edge = late.edge_between(jory, ilse)
    said_late = [m["description"] for m in db.edge_mentions(edge.id) if m["chunk_id"] in late.visible_chunks]
    said_early = [m["description"] for m in db.edge_mentions(edge.id) if m["chunk_id"] in early.visible_chunks]
    assert any("husband" in d for d in said_late) and not any("husband" in d for d in said_early)
    before = early.edge_between(jory, ilse)
    assert before is not None and before.weight < edge.weight and "husband" not in before.description
    assert early.find("Brother Tobiah") is None  # introduced in book 2


def test_search_respects_scope_threshold_and_type(built):
    store, _, _ = built
    embedder = HashEmbedder()
    vec = embedder.embed(["Tobiah"], kind="query")[0]
    full = GraphView.open(store, "lanterns")
    hits = full.search(vec, embedder.name, k=3, threshold=0.5)
    assert hits and hits[0][0].name == "Brother Tobiah"
    assert full.search(vec, embedder.name, k=3, threshold=0.99) == []
    assert full.search(vec, embedder.name, k=3, threshold=0.5, type_="location") == []
    early = GraphView.open(store, "lanterns", store.scope("lanterns", None, "1-3"))
    assert all(n.name != "Brother Tobiah" for n, _ in early.search(vec, embedder.name, k=5))


def test_joined_descriptions_are_distinct_and_in_order():
    assert joined(["Ada lights lamps", "ada lights lamps.", "She is brave."]) == "Ada lights lamps. She is brave."


def test_a_node_named_only_in_a_narrators_thought_is_the_narrators(tmp_path):
    import asyncio

    from incanon.canon import World
    from incanon.testing.first_person import first_person_world

    from graph_helpers import build_sample_graph, sample_store

    data = first_person_world().model_dump(by_alias=True)
    # Named only in Elias's unspoken thought at the trial ("the clockwork man I had wound ...").
    data["entities"] = [{"name": "clockwork man", "type": "object", "description": "The machine Elias built."}]
    world = World.model_validate(data)
    store = sample_store(tmp_path / "canon", world)
    try:
        asyncio.run(build_sample_graph(store, world))
        db = GraphDB(store, "marr")
        seen = {who: GraphView(db, store.scope("marr", who, "1-3-1", witnessed_only=True)).find("clockwork man",
                                                                                                 None)
                for who in ("Elias Marr", "Nell Ashby", "Ada Lisle")}
        assert seen["Elias Marr"] is not None
        assert seen["Nell Ashby"] is None and seen["Ada Lisle"] is None
        # The omniscient reader's graph has it: the node is there, only not perceived by them.
        assert GraphView(db).find("clockwork man", None) is not None
        db.close()
    finally:
        store.close()
