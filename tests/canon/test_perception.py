"""Knowledge at the grain of perception: units of a chunk, the default cut, and what each
character of a first-person world perceives (``incanon.canon.perception`` and the scope)."""

from __future__ import annotations

from pathlib import Path

import pytest

from incanon.canon import CanonStore
from incanon.canon.perception import (
    GAP,
    StatedUnit,
    Unit,
    default_units,
    narration_person,
    perceives,
    place_units,
    quoted_spans,
    view,
)
from incanon.errors import InputError

from incanon.testing.first_person import LETTER, SECRET_THOUGHT, SPOKEN, SUMMARY, first_person_world


def _quoted(text: str) -> list[str]:
    return [text[s:e] for s, e in quoted_spans(text)]


@pytest.mark.parametrize("text, expected", [
    ('He said "go home" and left.', ['"go home"']),
    ("\u201cCome,\u201d she said. \u201cNow.\u201d", ["\u201cCome,\u201d", "\u201cNow.\u201d"]),
    ("\u2018Don\u2019t,\u2019 he said; the boys\u2019 room was dark.", ["\u2018Don\u2019t,\u2019"]),
    ("\u300c\u4f60\u597d\u300d\u4ed6\u8bf4\u3002", ["\u300c\u4f60\u597d\u300d"]),
    ("\u00abVenez\u00bb, dit-il.", ["\u00abVenez\u00bb"]),
    ("Hij keek op.\n\u2014 Ja, zei hij.\nToen ging hij.", ["\u2014 Ja, zei hij."]),
    # A quote left open runs to the end of its paragraph, not into the next one.
    ("\u201cFirst part of a long speech\n\nNarration after.", ["\u201cFirst part of a long speech"]),
])
def test_quoted_speech_is_found_in_the_forms_books_use(text: str, expected: list[str]) -> None:
    assert _quoted(text) == expected


def test_default_units_keep_narration_private_only_in_a_first_person_work() -> None:
    text = 'I knew it. "Run," she said. I stayed.'
    first = default_units(text, "Me")
    assert [(text[u.start:u.end], u.mode, u.audience, u.by) for u in first] == [
        ("I knew it. ", "narration", "private", "Me"), ('"Run,"', "speech", "present", None),
        (" she said. I stayed.", "narration", "private", "Me")]
    assert {u.audience for u in default_units(text, None)} == {"present"}


def test_a_view_joins_perceived_pieces_and_marks_what_is_left_out() -> None:
    text = 'I knew it. "Run," she said. I stayed. "Now!"'
    units = default_units(text, "Me")
    assert view(text, units, "Me", 0, True) is text  # everything: the text itself
    assert view(text, units, "Her", 0, True) == '"Run,"' + GAP + '"Now!"'
    assert view(text, units, "Her", 0, False) == ""  # not present


def test_a_letter_is_known_to_its_reader_from_when_it_is_read() -> None:
    letter = Unit(0, 5, "document", "private", "Writer", ("Reader",), 30)
    assert perceives(letter, "Writer", 10, False)
    assert not perceives(letter, "Reader", 29, True)
    assert perceives(letter, "Reader", 30, False)
    assert not perceives(letter, "Someone", 99, True)


def test_a_stated_unit_not_in_the_text_is_named() -> None:
    units, missing = place_units("abc def", [StatedUnit("def", "speech"), StatedUnit("abc", "speech")], None)
    assert missing == 1  # in text order: "abc" does not come after "def"
    with pytest.raises(InputError, match=r"chunks\[2\]\.units\[0\]\.text: .* is not in the chunk's text"):
        data = first_person_world().model_dump(by_alias=True)
        data["chunks"][2]["units"] = [{"text": "never written", "mode": "speech"}]
        from incanon.canon import World
        store = CanonStore.open(Path(pytest.importorskip("tempfile").mkdtemp()) / "c")
        try:
            store.import_world(World.model_validate(data))
        finally:
            store.close()


def test_first_person_narration_is_told_apart() -> None:
    world = first_person_world()
    assert narration_person(c.text for c in world.chunks) == "first"
    third = ["She crossed the yard. He watched her go, and his heart sank. \u201cWait,\u201d he said."]
    assert narration_person(third) == "third"


@pytest.fixture
def store(tmp_path: Path):
    s = CanonStore.open(tmp_path / "canon")
    yield s
    s.close()


def _texts(store: CanonStore, who: str, at: str) -> str:
    scope = store.scope("marr", who, at, witnessed_only=True)
    return "\n".join(c.text for c in scope.chunks()) + "\n" + "\n".join(scope.knowledge().known_texts())


@pytest.mark.parametrize("who", ["Oren Marr", "Ada Lisle", "Nell Ashby"])
def test_only_the_narrator_perceives_the_narrators_unspoken_thought(store: CanonStore, who: str) -> None:
    store.import_world(first_person_world())
    assert SECRET_THOUGHT in _texts(store, "Elias Marr", "1-2-1")
    others = _texts(store, who, "1-3-1")
    assert SECRET_THOUGHT not in others
    assert SPOKEN in others  # what was said aloud at the trial is heard by all present


def test_a_scene_summary_is_the_narrators_telling(store: CanonStore) -> None:
    store.import_world(first_person_world())
    assert SUMMARY in _texts(store, "Elias Marr", "1-2-1")
    assert SUMMARY not in _texts(store, "Ada Lisle", "1-2-1")
    assert [s.summary for s in store.scope("marr", "Ada Lisle", "1-2-1").scenes(witnessed_only=True)] == [""]


def test_a_third_person_reading_of_the_same_book_lets_the_thought_through(store: CanonStore) -> None:
    # The planted leak: the same world read as third person gives the thought to all present;
    # the check above is one that can fail.
    store.import_world(first_person_world(narrator=None))
    assert SECRET_THOUGHT in _texts(store, "Nell Ashby", "1-2-1")


def test_the_letter_reaches_its_reader_only_when_read(store: CanonStore) -> None:
    store.import_world(first_person_world())
    assert LETTER in _texts(store, "Oren Marr", "1-1-1")
    assert LETTER not in _texts(store, "Elias Marr", "1-2-1")
    assert LETTER in _texts(store, "Elias Marr", "1-3-1")
    assert LETTER not in _texts(store, "Ada Lisle", "1-3-1")


def test_units_survive_export_and_import(store: CanonStore, tmp_path: Path) -> None:
    world = first_person_world()
    store.import_world(world)
    out = store.export_world("marr")
    assert out.work.narrator == "Elias Marr"
    assert out.chunks[0].units == world.chunks[0].units
    assert out.chunks[1].units == []  # the default cut is not written out
    with CanonStore.open(tmp_path / "again") as again:
        again.import_world(out)
        assert again.export_world("marr") == out


def test_search_and_labels_follow_perception(store: CanonStore) -> None:
    import numpy as np

    from incanon.canon.scope import IN_SCOPE, NOT_WITNESSED

    store.import_world(first_person_world())
    store.put_vectors("marr", "chunk", ["c1", "c2", "c3"], "v", np.eye(3, dtype=np.float32))
    nell = store.scope("marr", "Nell Ashby", "1-3-1", witnessed_only=True)
    hits = nell.search_chunks(np.ones(3, dtype=np.float32), "v", k=3)
    assert [h.item.id for h in hits] == ["c2"]
    assert SECRET_THOUGHT not in hits[0].item.text and SPOKEN in hits[0].item.text
    assert nell.label("1-1-1", "s1", chunk="c1") == NOT_WITNESSED
    assert nell.label("1-2-1", "s2", chunk="c2") == IN_SCOPE
    # Elias was not in the study, but perceives the letter there once he has read it.
    elias = store.scope("marr", "Elias Marr", "1-3-1", witnessed_only=True)
    assert elias.label("1-1-1", "s1", chunk="c1") == IN_SCOPE
    assert elias.knowledge().chunk_view(store.chunks("marr")[0]) == LETTER


def test_a_chunk_told_by_another_narrator_is_that_narrators_alone(store: CanonStore, tmp_path: Path) -> None:
    # A frame story: Oren's letter-chapter, told by Oren in the first person, inside Elias's book.
    data = first_person_world().model_dump(by_alias=True)
    data["chunks"].append({"id": "c9", "position": "1-3-1", "scene": "s3", "narrator": "Oren Marr",
                           "text": "I wrote to my son and I wept over the page. \u201cCome home,\u201d I said aloud."})
    data["scenes"][2]["participants"].append("Oren Marr")
    from incanon.canon import World
    store.import_world(World.model_validate(data))
    assert "I wept over the page" in _texts(store, "Oren Marr", "1-3-1")
    elias = _texts(store, "Elias Marr", "1-3-1")
    assert "I wept over the page" not in elias and "\u201cCome home,\u201d" in elias
    out = store.export_world("marr")
    assert out.chunks[-1].narrator == "Oren Marr" and out.chunks[0].narrator is None
    with CanonStore.open(tmp_path / "again") as again:
        again.import_world(out)
        assert again.export_world("marr") == out


def test_a_likely_narrator_is_found_only_for_first_person_books() -> None:
    from incanon.canon.perception import likely_narrator

    first = ['I walked to the mill. "Stay," she said. I stayed.', "I slept. My father woke me."]
    third = ['She walked to the mill. "Stay," he said. He stayed.']
    present = [["Elias", "Nell"], ["Elias"], ["Elias", "Oren"]]
    assert likely_narrator(first, present) == "Elias"
    assert likely_narrator(third, present) is None
    assert likely_narrator(first, [["A"], ["B"], ["C"]]) is None  # no one throughout


def test_among_characters_present_throughout_the_narrator_is_the_one_the_narration_names_least() -> None:
    from incanon.canon.perception import likely_narrator

    texts = ['I watched Nell in the dock. Nell wept. "Elias," she said, "help me." I said nothing.',
             "I went home with my father; Nell was hanged."]
    present = [["Nell", "Elias", "Oren"], ["Elias", "Oren", "Nell"]]
    names = {"Elias": ["Elias"], "Nell": ["Nell"], "Oren": ["Oren", "my father"]}
    assert likely_narrator(texts, present, names=names) == "Elias"  # named only in Nell's speech
