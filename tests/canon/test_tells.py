"""A profile sentence is known from the event it tells (``incanon.canon.tells``), and a dated
segment that says which scenes it tells waits for them."""

from __future__ import annotations

from pathlib import Path

import pytest

from incanon.canon import CanonStore, World
from incanon.canon.persona import persona_at

from incanon.testing.first_person import first_person_world

DEATH = "Oren Marr dies of grief soon after the trial."
HONEST = "Oren Marr keeps a quiet house."


def _world() -> World:
    data = first_person_world().model_dump(by_alias=True)
    # Oren has met the words "grief" and "die" early (his own study), so a word test passes the
    # sentence about his death long before it happens.
    data["chunks"][0]["text"] = data["chunks"][0]["text"].replace(
        "that night", "that night, sick with grief and dying for news of me,")
    data["chunks"][0]["units"][0]["text"] = data["chunks"][0]["units"][0]["text"].replace(
        "that night", "that night, sick with grief and dying for news of me,")
    data["scenes"].append({"id": "s4", "position": "1-4-1", "title": "The end of Oren",
                           "summary": "Oren Marr dies of grief in his study.", "participants": ["Oren Marr"]})
    data["chunks"].append({"id": "c4", "position": "1-4-1", "scene": "s4", "text": "My father died that spring."})
    oren = data["characters"][1]
    oren["profile"] = f"{HONEST} {DEATH}"
    elias = data["characters"][0]
    elias["profile"] = [{"text": "Elias is an engineer."},
                        {"text": "He has read his father's letter.", "tells": ["s3"]}]
    return World.model_validate(data)


@pytest.fixture
def store(tmp_path: Path):
    s = CanonStore.open(tmp_path / "canon")
    s.import_world(_world())
    yield s
    s.close()


def test_a_sentence_about_a_later_event_waits_for_it_though_its_words_are_known(store: CanonStore) -> None:
    early = persona_at(store, "marr", "Oren Marr", "1-2-1")
    assert DEATH not in early.profile and HONEST in early.profile
    assert any("has not perceived" in w.reason for w in early.withheld)
    assert DEATH in persona_at(store, "marr", "Oren Marr", "1-4-1").profile


def test_the_word_test_alone_would_let_it_through(store: CanonStore, monkeypatch: pytest.MonkeyPatch) -> None:
    # The plant: without the event test the sentence is served (so the test above can fail).
    from incanon.canon.tells import EventIndex

    monkeypatch.setattr(EventIndex, "unperceived", lambda self, stems: [])
    assert DEATH in persona_at(store, "marr", "Oren Marr", "1-2-1").profile


def test_a_segment_that_tells_a_scene_waits_until_the_scene_is_perceived(store: CanonStore) -> None:
    assert persona_at(store, "marr", "Elias Marr", "1-2-1").profile == "Elias is an engineer."
    assert "letter" in persona_at(store, "marr", "Elias Marr", "1-3-1").profile


def test_a_segment_telling_an_unknown_id_is_refused(tmp_path: Path) -> None:
    from incanon.errors import InputError

    data = _world().model_dump(by_alias=True)
    data["characters"][0]["profile_segments"][1]["tells"] = ["s9"]
    with CanonStore.open(tmp_path / "c") as s, pytest.raises(InputError, match=r"tells\[0\]: unknown scene or fact id 's9'"):
        s.import_world(World.model_validate(data))


def test_tells_survive_export(store: CanonStore) -> None:
    out = store.export_world("marr")
    assert out.characters[0].profile_segments[1].tells == ["s3"]
