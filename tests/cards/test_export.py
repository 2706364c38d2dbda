"""A point-in-time card holds what the character knows, and nothing outside the knowledge scope.

The oracle here is the sample world's own data, not the scope: positions, participants,
``public`` / ``known_by`` and where each name first occurs in the text.
"""

from __future__ import annotations

import json
import re

import pytest

from incanon.canon.persona import persona_at
from incanon.canon import CanonStore, Position
from incanon.cards import build_card
from incanon.sample import sample_world

from .conftest import WORK

WORLD = sample_world()
CASES = [("Wren Callow", "1-3"), ("Wren Callow", "2-3-1"), ("Dace Morrow", "1-3"), ("Sefa Quill", "2-4"),
         ("Ilse Varga", "1-2-3"), ("Jory Callow", "2-4"), ("Aldric Hame", "2-2-1")]


def _card_text(store: CanonStore, who: str, at: str) -> str:
    return json.dumps(json.loads(build_card(store, WORK, who, at).to_json()), ensure_ascii=False)


def _contains(text: str, name: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text, re.IGNORECASE) is not None


def _first_use() -> dict[str, int]:
    """Alias → key of the earliest story position whose text (any chunk, line, fact, summary) uses it."""
    texts = [(Position.parse(c.position).key, c.text) for c in WORLD.chunks]
    texts += [(Position.parse(f.position).key, f.text) for f in WORLD.facts]
    for s in WORLD.scenes:
        key = Position.parse(s.position).key
        texts += [(key, s.summary)] + [(key, m.speech) for m in s.messages]
    names = [n for c in WORLD.characters for n in c.aliases] + [n for e in WORLD.entities for n in e.aliases]
    first: dict[str, int] = {}
    for key, text in sorted(texts, key=lambda t: t[0]):
        for n in names:
            if n not in first and _contains(text, n):
                first[n] = key
    return first


FIRST_USE = _first_use()


@pytest.mark.parametrize("who, at", CASES)
def test_nothing_outside_the_scope_reaches_the_card(sample_store: CanonStore, who: str, at: str) -> None:
    text = _card_text(sample_store, who, at)
    pos = Position.parse(at)
    present = {s.id for s in WORLD.scenes if who in s.participants}
    # Future facts, and facts of scenes the character missed (not public, not passed on to them).
    for f in WORLD.facts:
        future = Position.parse(f.position) > pos
        missed = f.scene is not None and f.scene not in present and not f.public and who not in f.known_by
        if future or missed:
            assert f.text not in text, f"{f.id} leaked into {who}'s card at {at}"
    # Scenes after the position, or missed: their lines and summaries.
    for s in WORLD.scenes:
        if Position.parse(s.position) > pos or s.id not in present:
            for line in [s.summary, *(m.speech for m in s.messages)]:
                if len(line) >= 25:
                    assert line not in text, f"scene {s.id} leaked into {who}'s card at {at}: {line!r}"
    # Text of the book after the position.
    seen = " ".join(c.text for c in WORLD.chunks if Position.parse(c.position) <= pos)
    for c in WORLD.chunks:
        if Position.parse(c.position) > pos:
            for sentence in re.split(r"(?<=[.!?])\s+", c.text):
                if len(sentence) >= 40 and sentence not in seen:
                    assert sentence not in text, f"chunk {c.id} leaked into {who}'s card at {at}"
    # Aliases the story only uses after the position; characters and entities introduced later.
    for name, first in FIRST_USE.items():
        if first > pos.key:
            assert not _contains(text, name), f"later name {name!r} in {who}'s card at {at}"
    known = " ".join(f.text for f in WORLD.facts if Position.parse(f.position) <= pos
                     and (f.public or f.scene in present or who in f.known_by))
    for thing in [*WORLD.characters, *WORLD.entities]:
        start = getattr(thing, "first_position", None) or getattr(thing, "position", None)
        # (a fact the character knows may name a thing before the story introduces it)
        if start is not None and Position.parse(start) > pos and not _contains(known, thing.name):
            assert not _contains(text, thing.name), f"{thing.name!r} (from {start}) in {who}'s card at {at}"
    # Undated whole-work prose is never copied.
    for e in WORLD.entities:
        assert not (e.description and e.description in text)
    profile = next(c.profile for c in WORLD.characters if c.name == who)
    assert profile not in text


def test_wren_at_end_of_book_one_by_hand(sample_store: CanonStore) -> None:
    """Spoilers a reader of book 1 would name: none is on the card."""
    text = _card_text(sample_store, "Wren", "end of book 1")
    for spoiler in ("Stormwren", "Lamp-Mistress Callow", "A. H. Marrow", "Marrow-Hame", "Reckoner", "Tam Morrow",
                    "smashed", "1188", "Varga copy", "Ilse's copy", "Marrow Timber", "betray", "engaged"):
        assert spoiler.casefold() not in text.casefold(), spoiler
    assert "hates the name" not in text  # a personality sentence naming "Stormwren" is dropped


def test_the_later_name_appears_once_the_story_gives_it(sample_store: CanonStore) -> None:
    assert "Stormwren" not in _card_text(sample_store, "Dace", "2-3-1")
    late = build_card(sample_store, WORK, "Dace", "end of book 2")
    wren = next(e for e in late.data.character_book.entries if e.name == "Wren Callow")
    assert "Stormwren" in wren.keys


def test_every_known_fact_is_on_the_card_once(sample_store: CanonStore) -> None:
    card = build_card(sample_store, WORK, "Wren Callow", "1-3")
    scope = sample_store.scope(WORK, "Wren Callow", "1-3")
    on_card = [i for e in card.data.character_book.entries for i in e.extensions["incanon"]["facts"]]
    own = [f for f in scope.facts() if f.subject == "Wren Callow"]
    assert sorted(on_card + [f.id for f in own]) == sorted(f.id for f in scope.facts())
    for f in own:
        assert f.text in card.data.description


def test_card_fields_and_extensions(sample_store: CanonStore) -> None:
    card = build_card(sample_store, WORK, "Wren", "end of book 1")
    d = card.data
    assert card.spec == "chara_card_v2" and card.spec_version == "2.0" and d.name == "Wren Callow"
    persona = persona_at(sample_store, WORK, "Wren Callow", "1-3")
    # The scoped builder's profile first, then her time point at 1-3.
    assert persona.profile and d.description.startswith(persona.profile)
    assert "\n\nHas just won the Sea-Wall round" in d.description
    assert "Wren Callow → Ottilie Brand: apprentice" in d.description
    assert d.mes_example.startswith("<START>\n{{user}}: ") and d.mes_example.count("<START>") == 3
    # The greeting sets the latest scene she speaks in, then gives her first line there.
    scope = sample_store.scope(WORK, "Wren Callow", "1-3")
    scene = [s for s in scope.scenes(witnessed_only=True) if any(m.speaker == "Wren Callow" for m in sample_store.messages(WORK, s.id))][-1]
    first = next(m.speech for m in sample_store.messages(WORK, scene.id) if m.speaker == "Wren Callow")
    assert d.first_mes == f"*The Drowned Wick, Tanner's Quay. {scene.summary}*\n\n{first}"
    assert "So the crier says." not in d.first_mes  # her last line, out of context
    record = d.extensions["incanon"]
    assert (record["work"], record["character"], record["at"], record["when"]) == (WORK, "Wren Callow", "1-3",
                                                                                 "end of book 1")
    assert record["scope"]["visible"]["facts"] == record["card"]["facts"] == 15
    assert record["scope"]["hidden"]["future_scenes"] > 0 and record["card"]["names_dated"] is True
    by_name = {e.name: e for e in d.character_book.entries}
    assert by_name["Aldric Hame"].keys == ["Aldric Hame", "Provost Hame", "the Provost", "Hame"]
    assert by_name["Aldric Hame"].extensions["incanon"]["kind"] == "character"
    assert by_name["First Light"].extensions["incanon"] == {"kind": "entity", "type": "object",
                                                          "facts": ["f-light-burning"], "from_text": False}
    assert all(e.enabled and e.keys and e.content for e in d.character_book.entries)
    assert [e.insertion_order for e in d.character_book.entries] == list(range(len(d.character_book.entries)))


def test_no_examples_when_asked(sample_store: CanonStore) -> None:
    from incanon.cards import CardOptions

    assert build_card(sample_store, WORK, "Wren", "1-3", CardOptions(examples=0)).data.mes_example == ""


def test_dialogue_only_work_dates_names_by_its_lines(tmp_path) -> None:
    """A script with no book text (DialSim-style dated sessions) still dates names by its dialogue."""
    from incanon.canon import World

    world = World.model_validate({
        "work": {"id": "d", "title": "Dated", "axis": "date"},
        "characters": [{"name": "Ann"}, {"name": "Ben Ode", "aliases": ["Ben", "Captain Ode"]}],
        "scenes": [
            {"id": "s1", "position": "2024-01-02", "participants": ["Ann", "Ben Ode"],
             "messages": [{"speaker": "Ben Ode", "speech": "Hi, I'm Ben."}, {"speaker": "Ann", "speech": "Hello Ben."}]},
            {"id": "s2", "position": "2024-02-01", "participants": ["Ann", "Ben Ode"],
             "messages": [{"speaker": "Ann", "speech": "Congratulations, Captain Ode!"}]}],
        "facts": [{"id": "f1", "subject": "Ben Ode", "text": "Ben sells boats.", "position": "2024-01-02", "public": True}],
    })
    with CanonStore.open(tmp_path / "s") as store:
        store.import_world(world)
        early = build_card(store, "d", "Ann", "2024-01-10")
        late = build_card(store, "d", "Ann", "2024-02-01")
    assert early.data.extensions["incanon"]["card"]["names_dated"] is True
    assert early.data.character_book.entries[0].keys == ["Ben"]  # "Ben Ode" and "Captain Ode" unsaid yet
    assert "Captain Ode" in late.data.character_book.entries[0].keys
    assert early.data.first_mes == "Hello Ben." and late.data.first_mes == "Congratulations, Captain Ode!"
