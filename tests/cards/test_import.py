"""Importing cards: V2 and V1, the lorebook as facts, and the round trip of an exported card."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from incanon.canon import CanonStore, Position
from incanon.cards import CARD_POINT, USER_NAME, build_card, import_card, parse_card, parse_examples, read_card, write_card
from incanon.errors import InputError
from incanon.sample import sample_world

from .conftest import WORK

TEXT_FIELDS = ("name", "description", "personality", "scenario", "first_mes", "mes_example")


@pytest.mark.parametrize("suffix", ["png", "json"])
def test_card_exported_at_1_3_round_trips(sample_store: CanonStore, fresh_store: CanonStore, tmp_path: Path,
                                          suffix: str) -> None:
    exported = build_card(sample_store, WORK, "Wren Callow", "1-3")
    path = write_card(exported, tmp_path / f"wren.{suffix}")
    card, version = read_card(path)
    assert version == 2 and card == exported
    summary = import_card(fresh_store, card, work="wren", source=str(path))
    assert (summary.character, summary.at, summary.created_work) == ("Wren Callow", "1-3", True)  # where it was exported, not the start

    again = build_card(fresh_store, "wren", "Wren Callow", CARD_POINT)
    for name in TEXT_FIELDS:
        assert getattr(again.data, name) == getattr(exported.data, name), name
    book = lambda c: [(e.keys, e.content, e.extensions["incanon"]["type"]) for e in c.data.character_book.entries]  # noqa: E731
    assert book(again) == book(exported)
    assert fresh_store.work("wren").title == "The Lanterns of Harrowmere"


def test_no_later_fact_leaks_through_a_round_trip(sample_store: CanonStore, fresh_store: CanonStore) -> None:
    import_card(fresh_store, build_card(sample_store, WORK, "Wren", "1-3"), work="wren")
    text = json.dumps([f.to_dict() for f in fresh_store.facts("wren")] + [c.to_dict() for c in fresh_store.characters("wren")]
                      + [s.to_dict() for s in fresh_store.scenes("wren")], ensure_ascii=False)
    text += build_card(fresh_store, "wren", "Wren Callow", "card").to_json()
    for fact in sample_world().facts:
        if Position.parse(fact.position) > Position.parse("1-3"):
            assert fact.text not in text, fact.id
    for later in ("Stormwren", "Lamp-Mistress Callow", "A. H. Marrow", "smashed"):
        assert later not in text


def test_lorebook_entries_become_facts_the_character_knows(fresh_store: CanonStore) -> None:
    card, _ = parse_card({"spec": "chara_card_v2", "spec_version": "2.0", "data": {
        "name": "Maren", "description": "{{char}} keeps the light at <BOT>'s own pace.", "personality": "Dry.",
        "first_mes": "You're late.", "scenario": "A storm night in the lamp room.",
        "mes_example": "<START>\n{{user}}: Is it lit?\n{{char}}: Always.\nIt has to be.\n<START>\n<USER>: Cold?\nMaren: Never.",
        "alternate_greetings": ["Shut the door."],
        "character_book": {"entries": [
            {"keys": ["lamp", "the light"], "content": "The lamp is older than {{char}}.", "enabled": True,
             "insertion_order": 0},
            {"keys": ["storm"], "content": "Storms come in spring.", "enabled": False, "insertion_order": 1},
            {"keys": ["Maren"], "content": "Maren was born on the rock.", "enabled": True, "insertion_order": 2},
            {"keys": ["light", "lamp"], "name": "Beam", "content": "The beam reaches nine miles.", "enabled": True,
             "insertion_order": 3},
        ]}}}, "maren.json")
    summary = import_card(fresh_store, card, work="rock", at="1-1")
    assert summary.at == "1-1" and summary.facts == 3 and summary.entities == 2
    assert any("1 disabled" in n for n in summary.notes) and any("already naming" in n for n in summary.notes)
    maren = fresh_store.character("rock", "Maren")
    assert maren.profile == "Maren keeps the light at Maren's own pace." and maren.personality == "Dry."
    assert [(t.label, str(t.position)) for t in maren.time_points] == [("card", "1-1")]
    facts = {f.text: f for f in fresh_store.facts("rock")}
    assert facts["The lamp is older than Maren."].subject == "lamp"
    assert facts["Maren was born on the rock."].subject == "Maren"
    assert all(f.known_by == ("Maren",) and str(f.position) == "1-1" and not f.public for f in facts.values())
    lamp = next(e for e in fresh_store.entities("rock") if e.name == "lamp")
    assert lamp.aliases == ("the light",) and lamp.type == "concept"
    scope = fresh_store.scope("rock", "Maren", "1-1")
    assert len(scope.facts()) == 3
    assert not fresh_store.scope("rock", "Maren", "0").facts()  # placed at 1-1, not before
    lines = [(m.speaker, m.speech) for s in fresh_store.scenes("rock") for m in fresh_store.messages("rock", s.id)]
    assert lines == [(USER_NAME, "Is it lit?"), ("Maren", "Always.\nIt has to be."), (USER_NAME, "Cold?"),
                     ("Maren", "Never."), ("Maren", "Shut the door."), ("Maren", "You're late.")]
    assert fresh_store.scenes("rock")[-1].summary == "A storm night in the lamp room."


def test_v1_card(fresh_store: CanonStore, tmp_path: Path) -> None:
    path = tmp_path / "v1.json"
    path.write_text(json.dumps({"name": "Old Tom", "description": "A ferryman.", "personality": "Gruff.",
                                "scenario": "", "first_mes": "Fare?", "mes_example": ""}), encoding="utf-8")
    card, version = read_card(path)
    summary = import_card(fresh_store, card, work="river")
    assert version == 1 and summary.facts == 0 and summary.scenes == 1
    assert fresh_store.character("river", "Old Tom").profile == "A ferryman."


def test_existing_work_needs_merge_and_names_must_be_new(sample_store: CanonStore, fresh_store: CanonStore) -> None:
    fresh_store.import_world(sample_world())
    card, _ = parse_card({"name": "Wren"}, "c.json")
    with pytest.raises(InputError, match="--merge"):
        import_card(fresh_store, card, work=WORK)
    with pytest.raises(InputError, match="already has a character named 'Wren Callow'"):
        import_card(fresh_store, card, work=WORK, merge=True)
    newcomer, _ = parse_card({"spec": "chara_card_v2", "spec_version": "2.0", "data": {
        "name": "Mira Holt", "character_book": {"entries": [
            {"keys": ["First Light"], "content": "Mira has seen the First Light.", "enabled": True, "insertion_order": 0}]}}},
        "m.json")
    before = fresh_store.counts(WORK)
    summary = import_card(fresh_store, newcomer, work=WORK, at="2-1", merge=True)
    assert summary.entities == 0 and summary.facts == 1  # the entry joined the existing entity
    after = fresh_store.counts(WORK)
    assert after["characters"] == before["characters"] + 1 and after["facts"] == before["facts"] + 1
    assert "Mira has seen the First Light." in [f.text for f in fresh_store.scope(WORK, "Mira Holt", "2-1").facts()]
    assert "Mira has seen the First Light." not in [f.text for f in fresh_store.scope(WORK, "Wren", "3-4").facts()]


def test_bad_position_writes_nothing(fresh_store: CanonStore) -> None:
    card, _ = parse_card({"name": "Maren"}, "c.json")
    with pytest.raises(InputError):
        import_card(fresh_store, card, work="rock", at="2024-01-01")
    assert fresh_store.works() == []


def test_parse_examples_keeps_blocks_and_continuations() -> None:
    text = "<START>\r\n{{user}}: hi\r\n{{char}}: hello\r\nthere\r\n<START>\r\n<user>: yo\r\nNote: not a speaker\r\n"
    assert parse_examples(text, "Maren") == [[("{{user}}", "hi"), ("Maren", "hello\nthere")],
                                             [("{{user}}", "yo\nNote: not a speaker")]]


def test_greeting_and_a_different_scenario_round_trip(sample_store: CanonStore, fresh_store: CanonStore) -> None:
    """At 3-1 Wren last speaks in another scene than the latest one: both come back as they were."""
    exported = build_card(sample_store, WORK, "Wren Callow", "3-1")
    setting = exported.data.first_mes.split("\n\n")[0]
    assert setting.startswith("*The lantern room") and setting.strip("*") != exported.data.scenario
    import_card(fresh_store, exported, work="wren")
    again = build_card(fresh_store, "wren", "Wren Callow", CARD_POINT)
    assert (again.data.first_mes, again.data.scenario) == (exported.data.first_mes, exported.data.scenario)


def test_a_greeting_with_narration_keeps_it_as_the_scene(fresh_store: CanonStore) -> None:
    card, _ = parse_card({"name": "Maren", "first_mes": "*Maren looks up from the lamp.*\n\nYou're late, {{user}}."},
                         "maren.json")
    import_card(fresh_store, card, work="rock")
    scene = next(s for s in fresh_store.scenes("rock") if s.id.endswith("-greeting"))
    assert scene.summary == "Maren looks up from the lamp."
    assert [m.speech for m in fresh_store.messages("rock", scene.id)] == ["You're late, {{user}}."]
    assert build_card(fresh_store, "rock", "Maren", CARD_POINT).data.first_mes == card.data.first_mes
