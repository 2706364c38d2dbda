"""The scene step on a chapter longer than one split call reads: every piece is split, none is
left unread under the last scene."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Sequence

from incanon.canonbuild.scenes import find_scenes, split_pieces
from incanon.ingest.reader import BookText, ReadChapter
from incanon.models import ScriptedModel
from incanon.models.types import Message
from incanon.templates import default_library

PARAGRAPHS = [f"Scene {n} begins here with the keeper at the lamp, and it ends here at the door {n}." for n in range(40)]


def test_pieces_cover_the_text_at_paragraph_breaks_and_respect_the_limit() -> None:
    text = "\n\n".join(PARAGRAPHS)
    pieces = split_pieces(text, 1000)
    assert pieces[0][0] == 0 and pieces[-1][1] == len(text)
    assert all(a == b for (_, a), (b, _) in zip(pieces, pieces[1:]))
    assert all(end - start <= 1000 for start, end in pieces) and len(pieces) == 4
    assert all(text[end:end + 2] == "\n\n" for _, end in pieces[:-1])
    assert split_pieces("short", 1000) == [(0, 5)]
    assert all(b - a <= 50 for a, b in split_pieces("x" * 120, 50))  # no break at all: a hard cut


def _split(messages: Sequence[Message]) -> str:
    """Every paragraph of the piece it is shown is a scene (its first and last words)."""
    text = re.search(r"Chapter text:\n(.*?)\n\nAnswer with JSON only", messages[-1].content, re.S).group(1)
    scenes = [{"start": " ".join(p.split()[:8]), "end": " ".join(p.split()[-8:]), "summary": "s", "speakers": []}
              for p in text.split("\n\n") if p.strip()]
    return json.dumps({"scenes": scenes})


def test_a_long_chapter_is_split_in_pieces_and_its_scenes_placed_in_the_chapter() -> None:
    text = "\n\n".join(PARAGRAPHS)
    book = BookText(title="The Lamp", chapters=[ReadChapter(1, 1, "Night", text, 1)])
    model = ScriptedModel([(r"Chapter text:", _split)], default=json.dumps({"participants": []}))
    step = asyncio.run(find_scenes(book, model, default_library(), per_chapter=20, max_chapter_chars=1000))
    splits = [c for c in model.calls if "Chapter text:" in c.messages[-1].content]
    assert len(splits) == 4 and "(piece 2 of 4)" in splits[1].messages[-1].content
    assert [s.text for s in step.scenes] == PARAGRAPHS  # every scene of every piece, in order, in place
    assert [s.number for s in step.scenes] == list(range(1, 41)) and not step.problems
