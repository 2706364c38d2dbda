"""Adding documents updates the graph without rebuilding it; interrupted or failed builds resume."""

from __future__ import annotations

from incanon.errors import ModelError
from incanon.graph import GraphBuilder, GraphView, HashEmbedder, canon_chunks
from incanon.models import ScriptedModel

from graph_helpers import FAST, oracle_for


def _extraction_calls(model) -> int:
    return sum(len(c.messages) == 1 and "list the entities" in c.messages[0].content for c in model.calls)


async def test_adding_a_book_extracts_only_its_chunks_and_keeps_node_ids(store, world):
    chunks = canon_chunks(store, "lanterns")
    book1 = [c for c in chunks if c.position.book == 1]
    book2 = [c for c in chunks if c.position.book == 2]
    model = oracle_for(store, world)
    builder = GraphBuilder(store, "lanterns", model, embedder=HashEmbedder(), config=FAST)
    first = await builder.add(book1)
    view = GraphView(builder.db)
    wren, mentions = view.find("Wren Callow"), view.node(view.find("Wren Callow")).mentions
    calls_before = _extraction_calls(model)
    second = await builder.add(book1 + book2)
    assert second.chunks_new == len(book2) and second.chunks_extracted == len(book2)
    assert _extraction_calls(model) - calls_before == len(book2)
    view = GraphView(builder.db)
    assert view.find("Wren Callow") == wren and view.node(wren).mentions > mentions
    assert second.graph["nodes"] >= first.graph["nodes"]
    assert second.integration.normalization.exact > 0  # names already known attach without a judge
    total = len(model.calls)
    again = await builder.add(book1 + book2)
    assert again.chunks_extracted == 0 and len(model.calls) == total  # nothing new: no call at all
    builder.close()


async def test_a_failed_chunk_is_reported_and_retried_on_the_next_run(store, world):
    chunks = canon_chunks(store, "lanterns")[:4]
    good = oracle_for(store, world)
    target = chunks[2].text

    def flaky(messages):
        if target in messages[0].content:
            raise ModelError("server unavailable after 5 attempts")
        return good._reply(messages)

    builder = GraphBuilder(store, "lanterns", ScriptedModel(default=flaky), embedder=HashEmbedder(), config=FAST)
    report = await builder.add(chunks)
    assert [i.chunk for i in report.failed] == [chunks[2].id]
    assert "server unavailable" in report.failed[0].note
    builder.model.inner = good
    again = await builder.add(chunks)
    assert again.chunks_extracted == 1 and not again.failed and not again.empty
    assert [i.status for i in again.issues] == ["warning"] and "concept" in again.issues[0].note  # a type RoleRAG lacks
    assert {c.status for c in builder.db.chunk_rows()} == {"integrated"}
    builder.close()
