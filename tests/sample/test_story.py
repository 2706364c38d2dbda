"""The story text itself: size, shape, voices that name who is present, the alias, the calendar."""

from __future__ import annotations

import re

from incanon.sample import fold, sample_paths

from .conftest import MAIN_CHARACTERS, pos


def test_files_exist():
    paths = sample_paths()
    assert [p.name for p in paths.books] == ["book1.md", "book2.md", "book3.md"]
    for path in (*paths.books, paths.script, paths.annotations):
        assert path.is_file() and path.stat().st_size > 1000


def test_word_count_in_range(books):
    total = sum(book.word_count() for book in books)
    assert 8000 <= total <= 15000, total
    assert all(book.word_count() > 2500 for book in books)


def test_three_books_of_three_or_four_chapters_of_two_or_three_scenes(books, annotations):
    assert [b.number for b in books] == [1, 2, 3]
    assert {str(b.number): b.title for b in books} == annotations["work"]["books"]
    for book in books:
        assert 3 <= len(book.chapters) <= 4, book.title
        for chapter in book.chapters:
            assert chapter.title
            assert 2 <= len(chapter.scenes) <= 3, (book.number, chapter.number)


def test_every_scene_marker_is_annotated_and_vice_versa(books, annotations):
    marked = {scene.id for book in books for scene in book.scenes()}
    annotated = {s["id"] for s in annotations["scenes"] if not s["id"].startswith("session-")}
    assert marked == annotated
    for s in annotations["scenes"]:
        if s["id"] in marked:
            assert s["position"] == s["id"]
            assert s["title"] and s["location"] and s["summary"]


def _mentions(text: str, names: list[str]) -> bool:
    folded = fold(text)
    return any(re.search(rf"\b{re.escape(fold(n))}\b", folded) for n in names)


def test_every_participant_is_named_in_the_scene_text(books, world):
    aliases = {c.name: [c.name, *c.aliases, *c.name.split()[:1]] for c in world.characters}
    annotated = {s.id: s for s in world.scenes}
    for book in books:
        for scene in book.scenes():
            for person in annotated[scene.id].participants:
                assert _mentions(scene.text, aliases[person]), (scene.id, person)


def test_some_scenes_miss_main_characters(world):
    prose = [s for s in world.scenes if not s.id.startswith("session-")]
    for name in MAIN_CHARACTERS:
        present = sum(name in s.participants for s in prose)
        assert 0 < present < len(prose), name
    # e.g. Wren is not at the raid on the Tower, Jory not on the wall when the Greatgate bursts
    scenes = {s.id: s for s in world.scenes}
    assert "Wren Callow" not in scenes["3-2-1"].participants
    assert "Jory Callow" not in scenes["2-3-1"].participants


def test_stormwren_appears_only_from_the_morning_after_the_flood(books, sessions, world):
    wren = next(c for c in world.characters if c.name == "Wren Callow")
    assert "Stormwren" in wren.aliases
    first = pos("2-4-1")
    seen_at = [scene.id for book in books for scene in book.scenes() if "Stormwren" in scene.text]
    assert seen_at and all(pos(s) >= first for s in seen_at)
    assert "2-4-1" in seen_at
    for session in sessions:
        if any("Stormwren" in t.text for t in session.utterances):
            assert pos(session.position) >= first
    # the later title too
    assert "Lamp-Mistress Callow" in wren.aliases
    assert all(pos(scene.id) >= pos("3-4-3") for book in books for scene in book.scenes()
               if "Lamp-Mistress Callow" in scene.text)


def test_calendar_runs_forward_with_the_story(world):
    dated = sorted((s for s in world.scenes if s.date), key=lambda s: (pos(s.position).key, s.date))
    assert len(dated) == len(world.scenes)
    dates = [s.date for s in dated]
    assert dates == sorted(dates)


_SPEECH_VERBS = r"(?:said|asked|muttered|shouted|whispered|called|added|murmured|gasped|panted)"


def test_characters_attributed_speech_are_annotated_speakers(books, world, names):
    """``"...," said Dace`` in a scene means Dace speaks there, so he must be an annotated speaker."""
    forms = sorted((n for n in names if names[n] in {c.name for c in world.characters}), key=len, reverse=True)
    alternation = "|".join(re.escape(f) for f in forms)
    after = re.compile(rf"\b{_SPEECH_VERBS}\s+({alternation})\b")
    before = re.compile(rf"\b({alternation})\s+{_SPEECH_VERBS}\b")
    annotated = {s.id: s for s in world.scenes}
    checked = 0
    for book in books:
        for scene in book.scenes():
            narration = fold(re.sub(r'"[^"]*"', " ", scene.text))  # reported speech inside quotes is not speech
            said = {names[m.group(1)] for rx in (after, before) for m in rx.finditer(narration)}
            assert said <= set(annotated[scene.id].speakers), (scene.id, said - set(annotated[scene.id].speakers))
            checked += len(said)
    assert checked > 40
