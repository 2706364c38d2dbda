"""One chapter of the sample world curated end to end on the embedded SmolLM2-135M model.

Every structured call is schema-constrained (llama.cpp grammar), with small caps on items and
string lengths so the 135M model finishes its JSON. What the tiny model writes is poor; what
is checked is that the whole pipeline runs on a real backend and its outputs hold together.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from incanon.bench.coser.curate import CurationConfig, SchemaLimits, curate_book, read_books
from incanon.bench.coser.curate.sources import BookSource
from incanon.bench.coser.files import load_book
from incanon.canon import CanonStore
from incanon.models import load_chat_model
from incanon.sample import sample_paths

CONFIG = CurationConfig(
    max_tokens=2400,  # chapter 1 (~1,500 approximate tokens) is one chunk
    output_tokens=700,
    max_attempts=2,
    limits=SchemaLimits(max_plots=1, max_conversations=1, max_characters=2, max_dialogues=3, max_text=80,
                        max_chapters=1),
    refine_tokens=250,
    names_tokens=250,
    profile_tokens=80,
    concurrency=1,
)


@pytest.mark.slow
async def test_one_chapter_on_the_embedded_model(tmp_path):
    text = read_books([sample_paths().books[0]])[0].content
    chapter = text[: text.index("## Chapter 2")]
    book = BookSource("The Wall-Lamps", chapter, source="book1.md, chapter 1")
    model = load_chat_model("embedded", retry=None)
    with CanonStore.open(tmp_path / "canon") as store:
        report = await curate_book(book, model, tmp_path, config=CONFIG, store=store)
        counts = store.counts(book.slug)
    assert len(report.chunks) == 1
    (chunk,) = report.chunks
    assert chunk.status == "ok", chunk.errors
    assert chunk.stats["calls"] >= 1 and chunk.stats["completion_tokens"] > 0
    data = load_book(report.file)  # the published layout reads back
    assert data.split_index == int(len(data.plots) * 0.9)
    assert all(p.text == "" or p.text in chapter for p in data.plots)
    raw = json.loads(Path(report.file).read_text())
    assert list(raw)[:3] == ["plots", "character_datasets", "split_plot_index"]
    assert counts["characters"] == len(data.character_datasets)
    # Resuming calls nothing: the journal has every step.
    again = await curate_book(book, model, tmp_path, config=CONFIG)
    assert all(c.resumed for c in again.chunks) and model.usage.calls == report.stats.calls
