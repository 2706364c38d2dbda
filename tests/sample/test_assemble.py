"""assemble_world catches disagreements between annotations, books and script."""

from __future__ import annotations

import pytest

from incanon.errors import InputError
from incanon.ingest import parse_markdown_book, parse_transcript
from incanon.sample import assemble_world

BOOK = parse_markdown_book("# Book 1: T\n## Chapter 1: C\n<!-- scene 1-1-1 -->\nAnn met Bob.\n", source="b.md")
SCRIPT = parse_transcript("## 1001-01-01 | 1-1-1\nAnn: Hi.\nBobby: Hello.\nAnn: Bye.\n", source="s.txt")


def _annotations(**scene_fields):
    session = {"id": "session-1", "position": "1-1-1", "date": "1001-01-01", **scene_fields}
    return {
        "work": {"id": "t", "title": "T"},
        "characters": [{"name": "Ann"}, {"name": "Bob", "aliases": ["Bobby"]}, {"name": "Cy"}],
        "scenes": [session],
    }


def test_fills_dialogue_and_bare_scenes():
    world = assemble_world(_annotations(participants=["Cy"]), books=[BOOK], sessions=SCRIPT)
    scenes = {s.id: s for s in world.scenes}
    assert scenes["1-1-1"].position == "1-1-1" and world.chunks[0].id == "1-1-1#0"
    session = scenes["session-1"]
    assert session.speakers == ["Ann", "Bob"]
    assert session.participants == ["Cy", "Ann", "Bob"]
    assert [m.speaker for m in session.messages] == ["Ann", "Bob", "Ann"]


def test_adds_unannotated_sessions():
    annotations = _annotations()
    annotations["scenes"] = []
    world = assemble_world(annotations, sessions=SCRIPT)
    assert [s.id for s in world.scenes] == ["session-1"]


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"speakers": ["Ann"]}, "annotated speakers"),
        ({"position": "1-1-2"}, "gives position"),
        ({"date": "1001-01-02"}, "gives date"),
        ({"messages": [{"speaker": "Ann", "speech": "Hi."}]}, "messages differ"),
    ],
)
def test_disagreements_are_errors(fields, expected):
    with pytest.raises(InputError, match=expected):
        assemble_world(_annotations(**fields), sessions=SCRIPT, source="ann.json")
