"""A book with no scene annotations: participants come from the helper (the paper's participant
step), are stored in the canon, and decide the data types; a scene with none gets no
presence/absence item."""

from __future__ import annotations

import asyncio
import json
import re

from incanon.bench.timechara import BuildOptions, build_items
from incanon.canon import CanonStore
from incanon.canon.world import Character, Scene, TimePoint, WorkInfo, World
from incanon.ingest import chunk_book, parse_markdown_book
from incanon.models import ScriptedModel

BOOK = """# Book 1: The Mill
## Chapter 1: Flour
"Is the wheel turning?" asked Mara. "Not since dawn," said Tobin. "Then we go up to the dam," said Mara.
## Chapter 2: The Dam
"Look at the crack," said Tobin. "We must tell the miller," said Mara. Pell, at home, baked bread.
## Chapter 3: The Miller
"The dam will hold," said Pell. "It will not," said Mara.
## Chapter 4: Rain
"Rain," someone said. "Rain," said another.
"""
# Who the text puts in each chapter (what a careful reader, or the helper, says).
PRESENT = {"1-1-1": ["Mara", "Tobin"], "1-2-1": ["Tobin", "Mara"], "1-3-1": ["Pell", "Mara"], "1-4-1": []}


def _store(tmp_path):
    parsed = parse_markdown_book(BOOK, source="mill.md")
    world = World(
        work=WorkInfo(id="mill", title="The Mill"),
        characters=[Character(name=n, time_points=[TimePoint(label="end of the book", position="1-4")])
                    for n in ("Mara", "Tobin", "Pell")],
        chunks=chunk_book(parsed), scenes=[Scene(id=s.id, position=s.position) for s in parsed.scenes()])
    store = CanonStore.open(tmp_path / "canon")
    store.import_world(world)
    return store


def _event(messages):
    pos = re.search(r"story position ([\d-]+)", messages[-1].content).group(1)
    return json.dumps({"event_summary": f"The millers argued at {pos}.", "participants": PRESENT[pos]})


def test_raw_book_items_follow_the_text(tmp_path):
    store = _store(tmp_path)
    helper = ScriptedModel([(r"Summarize the scene", _event), (r"stays consistent", "Score: 1")], default="Fine.")
    result = asyncio.run(build_items(store, "mill", helper, options=BuildOptions(freeform=False, fake=False)))
    structured = [(i.scene, i.character, i.data_type) for i in result.items
                  if i.question_generation == "fact_structured" and i.data_type != "future"]
    assert len(structured) == 9
    for scene, character, data_type in structured:
        assert data_type == ("past-presence" if character in PRESENT[scene] else "past-absence"), (scene, character)
    assert result.report.participants_from_helper == {k: v for k, v in PRESENT.items() if v}
    assert result.report.no_participants == ["1-4-1"]  # said, and no presence/absence item made from it
    assert not [i for i in result.items if i.scene == "1-4-1" and i.data_type.startswith("past-")]
    stored = {s.id: set(s.participants) for s in store.scenes("mill")}
    assert stored == {k: set(v) for k, v in PRESENT.items()}
    store.close()
