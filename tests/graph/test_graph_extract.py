"""Per-chunk extraction with the scripted model: structured output, repair, retry, gleaning,
and chunks that yield nothing reported rather than skipped."""

from __future__ import annotations

import json

from incanon.graph import ChunkExtractor, GraphConfig, SourceChunk, build_graph, canon_chunks
from incanon.graph import GraphDB, HashEmbedder
from incanon.models import ContextOverflowError, ScriptedModel

CHUNK = SourceChunk(id="c1", text="Ada lit the lamp on the Beacon Tower while Ben watched.", position=None)
GOOD = json.dumps({"entities": [{"name": "Ada", "type": "character", "description": "lights the lamp"},
                                {"name": "Beacon Tower", "type": "location", "description": "a tower"}],
                   "relations": [{"source": "Ada", "target": "Beacon Tower", "description": "works there", "strength": 7}]})
NOTHING = json.dumps({"entities": [], "relations": []})
BEN = json.dumps({"entities": [{"name": "Ben", "type": "character", "description": "watches"}], "relations": []})


async def test_first_reply_parsed_with_a_schema_and_gleaning_adds_what_was_missed():
    model = ScriptedModel(queue=[GOOD, BEN, NOTHING])
    result = await ChunkExtractor(model, GraphConfig(gleanings=2)).extract(CHUNK)
    assert result.status == "extracted" and result.calls == 3
    assert [e.name for e in result.extraction.entities] == ["Ada", "Beacon Tower", "Ben"]
    assert model.calls[0].params.response_format["type"] == "json_schema"
    assert "missed" in model.calls[1].messages[-1].content  # the gleaning turn continues the conversation
    assert model.calls[1].messages[-2].content == GOOD


async def test_gleaning_stops_when_nothing_new_comes():
    model = ScriptedModel(queue=[GOOD, GOOD])
    result = await ChunkExtractor(model, GraphConfig(gleanings=3)).extract(CHUNK)
    assert result.calls == 2 and len(result.extraction.entities) == 2


async def test_unreadable_reply_is_repaired_in_the_same_conversation():
    model = ScriptedModel(queue=["Here are the entities: Ada, the tower.", GOOD])
    result = await ChunkExtractor(model, GraphConfig(gleanings=0)).extract(CHUNK)
    assert result.status == "extracted" and result.calls == 2
    repair = model.calls[1].messages
    assert repair[-2].content.startswith("Here are") and "could not be read" in repair[-1].content
    assert model.calls[1].params.response_format is not None


async def test_retry_after_a_failed_repair_then_failure_is_reported():
    model = ScriptedModel(queue=["no", "still no", GOOD])
    result = await ChunkExtractor(model, GraphConfig(gleanings=0, max_attempts=2)).extract(CHUNK)
    assert result.status == "extracted" and result.calls == 3
    model = ScriptedModel(default="I will not answer in JSON.")
    result = await ChunkExtractor(model, GraphConfig(gleanings=0, max_attempts=2)).extract(CHUNK)
    assert result.status == "failed" and result.calls == 4
    assert sum("unreadable extraction" in n for n in result.notes) == 2


async def test_context_overflow_fails_the_chunk_with_a_reason():
    model = ScriptedModel(queue=[ContextOverflowError("prompt of 5000 tokens > 2048", prompt_tokens=5000, n_ctx=2048)])
    result = await ChunkExtractor(model).extract(CHUNK)
    assert result.status == "failed" and "context" in result.notes[0]


async def test_empty_chunks_are_reported_by_the_build(store):
    chunks = canon_chunks(store, "lanterns")[:3]
    model = ScriptedModel(rules=[(r"Ada|Wren|Dace|Ottilie", NOTHING)], default=NOTHING)
    report = await build_graph(store, "lanterns", model, chunks, embedder=HashEmbedder(),
                               config=GraphConfig(gleanings=0))
    assert report.chunks_extracted == 3 and len(report.empty) == 3
    assert all("nothing extracted" in i.note for i in report.empty)
    assert report.graph["nodes"] == 0
    assert {c.status for c in GraphDB(store, "lanterns").chunk_rows()} == {"empty"}


async def test_descriptions_can_be_bounded_by_the_schema():
    model = ScriptedModel(queue=[GOOD])
    await ChunkExtractor(model, GraphConfig(gleanings=0, description_chars=120)).extract(CHUNK)
    fmt = model.calls[0].params.response_format["json_schema"]
    entity = fmt["schema"]["properties"]["entities"]["items"]["properties"]
    assert entity["description"]["maxLength"] == 120 and fmt["strict"] is False
    model = ScriptedModel(queue=[GOOD])
    await ChunkExtractor(model, GraphConfig(gleanings=0)).extract(CHUNK)
    assert model.calls[0].params.response_format["json_schema"]["strict"] is True
