"""A third-party card survives import and export whole: every field the V2 and V3 specifications
define, unknown extension keys, lorebook settings, entry ids and order, and the card's own
lorebook triggers (regular expressions, selective keys, decorators) are honoured by incanon."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from incanon.canon import CanonStore
from incanon.cards import build_card, import_card, parse_card, read_card, write_card
from incanon.cards.lorebook import fires, strip_decorators

_V3 = {
    "spec": "chara_card_v3", "spec_version": "3.0",
    "data": {
        "name": "Marguerite Osei", "nickname": "Daisy",
        "description": "{{char}} keeps the lighthouse on Scarrow Point.",
        "personality": "Dry, patient, whistles when she is worried.",
        "scenario": "A storm is coming in.",
        "first_mes": "You're soaked. Come in, quick.",
        "mes_example": "<START>\n{{user}}: Do you ever sleep?\n{{char}}: When the lamp lets me.",
        "creator_notes": "Test card written for incanon.",
        "creator_notes_multilingual": {"fr": "Carte de test."},
        "system_prompt": "", "post_history_instructions": "Stay brief.",
        "alternate_greetings": ["The lamp's out again.", "Mind the stairs."],
        "group_only_greetings": ["Everyone, inside."],
        "tags": ["lighthouse"], "creator": "incanon tests", "character_version": "7",
        "source": ["https://example.invalid/daisy"],
        "assets": [{"type": "icon", "uri": "ccdefault:", "name": "main", "ext": "png"}],
        "creation_date": 1700000000, "modification_date": 1700000001,
        "extensions": {"talkativeness": "0.4", "fav": True, "depth_prompt": {"prompt": "Sea air.", "depth": 4}},
        "character_book": {
            "name": "Scarrow Point", "description": "The point and its people.", "scan_depth": 6,
            "token_budget": 900, "recursive_scanning": True, "extensions": {"custom": 1},
            "entries": [
                {"keys": ["/whistl(e|ing)/i"], "content": "@@depth 3\nShe whistles the tide song to calm herself.",
                 "extensions": {"position": 4}, "enabled": True, "insertion_order": 20, "use_regex": True,
                 "case_sensitive": False, "constant": False, "id": 41, "comment": "whistling", "priority": 5},
                {"keys": ["lamp"], "secondary_keys": ["broken", "cracked"], "selective": True,
                 "content": "The lamp's lens cracked in the winter of the big storm.", "extensions": {},
                 "enabled": True, "insertion_order": 10, "use_regex": False, "id": 7, "name": "Lens"},
                {"keys": ["Tomas"], "content": "Tomas brings the oil on Thursdays.", "extensions": {},
                 "enabled": False, "insertion_order": 30, "use_regex": False, "id": 9},
            ],
        },
    },
}


@pytest.fixture()
def store(tmp_path: Path):
    s = CanonStore.open(tmp_path / "canon")
    yield s
    s.close()


def _round_trip(store: CanonStore, doc: dict, tmp_path: Path, version: int) -> dict:
    source = tmp_path / "in.json"
    source.write_text(json.dumps(doc), encoding="utf-8")
    card, _ = read_card(source)
    summary = import_card(store, card, work="scarrow", source=str(source))
    out = write_card(build_card(store, "scarrow", summary.character, "card"), tmp_path / f"out{version}.json",
                     version=version)
    return json.loads(out.read_text(encoding="utf-8"))


def test_a_v3_card_keeps_every_field(store: CanonStore, tmp_path: Path) -> None:
    again = _round_trip(store, _V3, tmp_path, 3)
    assert again["spec"] == "chara_card_v3"
    data, want = again["data"], copy.deepcopy(_V3["data"])
    assert data.pop("modification_date") >= want.pop("modification_date")
    incanon = data["extensions"].pop("incanon")
    assert incanon["character"] == "Marguerite Osei"
    assert data == want  # nickname, greetings, extensions, book settings, entry ids and order, decorators


def test_a_v2_card_with_nulls_keeps_them(store: CanonStore, tmp_path: Path) -> None:
    doc = {"spec": "chara_card_v2", "spec_version": "2.0",
           "data": {"name": "Pell", "description": "A crier.", "personality": None, "scenario": "",
                    "first_mes": "Hear ye!", "mes_example": "", "creator_notes": "", "system_prompt": "",
                    "post_history_instructions": "", "alternate_greetings": [], "tags": [], "creator": "",
                    "character_version": "", "extensions": {"world": "Harbour"}, "character_book": None}}
    again = _round_trip(store, doc, tmp_path, 2)
    again["data"]["extensions"].pop("incanon")
    assert again["data"] == doc["data"]


def test_the_import_reads_the_card_as_its_front_ends_do(store: CanonStore, tmp_path: Path) -> None:
    card, _ = parse_card(_V3, "daisy.json")
    import_card(store, card, work="scarrow")
    me = store.character("scarrow", "Daisy")  # the nickname is a name of hers
    assert me.name == "Marguerite Osei"
    assert [c.name for c in store.characters("scarrow")] == ["Marguerite Osei"]  # no {{user}} character
    assert store.work("scarrow").title == "scarrow"  # not the character's name
    facts = {f.text for f in store.facts("scarrow")}
    assert "She whistles the tide song to calm herself." in facts  # the decorator is not text
    names = {n for e in store.entities("scarrow") for n in (e.name, *e.aliases)}
    assert not any(n.startswith("/") for n in names)  # a pattern is no name


def test_lorebook_triggers_follow_the_specification() -> None:
    whistle, lens, disabled = _V3["data"]["character_book"]["entries"]
    assert fires(whistle, "Why are you whistling?") and not fires(whistle, "Why so quiet?")
    assert fires(lens, "Is the lamp broken?") and not fires(lens, "Is the lamp lit?")
    assert not fires(disabled, "Where is Tomas?")
    assert fires({**lens, "extensions": {"selectiveLogic": 2}}, "Is the lamp lit?")  # NOT ANY
    assert not fires({**whistle, "content": "@@dont_activate\nx"}, "whistling")
    assert strip_decorators("@@depth 3\n@@activate\nText.") == "Text."


def test_in_canon_puts_a_fired_entry_first(store: CanonStore) -> None:
    from incanon.agents.in_canon import relevant_facts
    from incanon.canon.horizon import Horizon

    card, _ = parse_card(_V3, "daisy.json")
    import_card(store, card, work="scarrow")
    horizon = Horizon(store, "scarrow", "Marguerite Osei", "1-1-1")
    first = relevant_facts(horizon, "Why are you whistling?", 1)
    assert first[0].text.startswith("She whistles")
