"""Dated dialogue scripts: sessions, continuation lines, conversion to scenes, errors with line numbers."""

from __future__ import annotations

import pytest

from incanon.errors import InputError
from incanon.ingest import parse_transcript

SCRIPT = """\
# A comment line before the first session

## 1043-05-12 | 2-1-2
Ann: Hello there.
Bob Stone: Hi: how are you?
    Still talking here.

Ann: Fine.
## 1043-05-13 | 2-1 | At the mill
Cid: Morning.

Ann: Morning, Cid.
## 1043-05-20
Bob Stone: No position on this one.
"""


def test_sessions_dates_positions_and_utterances():
    sessions = parse_transcript(SCRIPT, source="s.txt")
    assert [(s.id, s.date, s.position, s.title, s.line) for s in sessions] == [
        ("session-1", "1043-05-12", "2-1-2", "", 3),
        ("session-2", "1043-05-13", "2-1", "At the mill", 9),
        ("session-3", "1043-05-20", None, "", 13),
    ]
    first = sessions[0]
    assert [(t.speaker, t.text, t.line) for t in first.utterances] == [
        ("Ann", "Hello there.", 4),
        ("Bob Stone", "Hi: how are you? Still talking here.", 5),
        ("Ann", "Fine.", 8),
    ]
    assert first.speakers == ["Ann", "Bob Stone"]


def test_to_scene_resolves_aliases_and_adds_silent_participants():
    session = parse_transcript(SCRIPT)[0]
    scene = session.to_scene(
        resolve={"ann": "Ann Marsh", "BOB  STONE": "Robert Stone"}, participants=["Dee"], summary="Hi."
    )
    assert scene.id == "session-1" and scene.position == "2-1-2" and scene.date == "1043-05-12"
    assert scene.speakers == ["Ann Marsh", "Robert Stone"]
    assert scene.participants == ["Dee", "Ann Marsh", "Robert Stone"]
    assert [m.speaker for m in scene.messages] == ["Ann Marsh", "Robert Stone", "Ann Marsh"]
    assert scene.messages[1].speech == "Hi: how are you? Still talking here."
    # without a story position the date is the position
    assert parse_transcript(SCRIPT)[2].to_scene().position == "1043-05-20"


@pytest.mark.parametrize(
    ("text", "line", "expected"),
    [
        ("## May 12th | 2-1\nAnn: Hi.\n", 1, "bad session header"),
        ("## 1043-02-30\nAnn: Hi.\n", 1, "bad session date"),
        ("## 1043-02-03 | chapter two\nAnn: Hi.\n", 1, "bad story position"),
        ("## 1043-02-03 | 1043-02-04\nAnn: Hi.\n", 1, "is a date: expected book-chapter"),
        ("## 1043-02-03 | 1-1 | title | more\nAnn: Hi.\n", 1, "bad session header"),
        ("## 1043-02-03\nAnn: Hi.\njust some words\n", 3, "line without a speaker"),
        ("Ann: Hi.\n## 1043-02-03\nAnn: Hi.\n", 1, "before the first session header"),
        ("## 1043-02-03\n  indented first\n", 2, "continuation line before any"),
        ("## 1043-02-03\n\n## 1043-02-04\nAnn: Hi.\n", 1, "has no utterances"),
        ("## 1043-02-03\nAnn: Hi.\n## 1043-02-01\nAnn: Hi.\n", 3, "expected sessions in date order"),
        ("## 1043-02-03\nAnn:\n", 2, "says nothing"),
    ],
)
def test_errors_name_file_and_line(text, line, expected):
    with pytest.raises(InputError) as info:
        parse_transcript(text, source="bad.txt")
    message = str(info.value)
    assert message.startswith(f"bad.txt (line {line}): "), message
    assert expected in message


def test_a_time_is_not_taken_for_a_speaker():
    with pytest.raises(InputError, match="line 2"):
        parse_transcript("## 1043-02-03\n12:30 they met\n")
