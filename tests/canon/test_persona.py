"""The scoped persona: dated aliases in world files, and ``persona_at`` giving a character as it
stands at one position (names in use, profile by time point, dated segment or cleaned whole-story
text, with a warning naming what was left out)."""

from __future__ import annotations

from pathlib import Path

import pytest

from incanon.canon import CanonStore, World, load_world_file, write_world_file
from incanon.canon.persona import persona_at
from incanon.sample import sample_world

from .fixtures import harbor_data


@pytest.fixture(scope="module")
def lanterns(tmp_path_factory: pytest.TempPathFactory):
    """The sample world in a store of its own (read only by these tests)."""
    store = CanonStore.open(tmp_path_factory.mktemp("persona") / "canon")
    store.import_world(sample_world())
    yield store
    store.close()


def _harbor_store(tmp_path: Path, **alice: object) -> CanonStore:
    """The harbor world with Alice's record changed by ``alice``."""
    data = harbor_data()
    data["characters"][0].update(alice)
    store = CanonStore.open(tmp_path / "canon")
    store.import_world(World.model_validate(data))
    return store


def test_dated_aliases_round_trip_through_import_and_export(tmp_path: Path) -> None:
    aliases = ["Alice", {"name": "Storm Keeper", "from": "2-3"}, "Miss Reed"]
    store = _harbor_store(tmp_path, aliases=aliases)
    exported = store.export_world("harbor")
    alice = next(c for c in exported.characters if c.name == "Alice Reed")
    assert alice.model_dump(mode="json", by_alias=True)["aliases"] == aliases
    # And through a world file, read back into a second store, unchanged.
    path = write_world_file(exported, tmp_path / "harbor.json")
    again = CanonStore.open(tmp_path / "again")
    again.import_world(load_world_file(path))
    back = next(c for c in again.export_world("harbor").characters if c.name == "Alice Reed")
    assert back.aliases == ["Alice", "Storm Keeper", "Miss Reed"]
    assert back.alias_from == {"Storm Keeper": "2-3"}
    # The alias is a name of Alice only from 2-3 on.
    assert "Storm Keeper" not in persona_at(again, "harbor", "Alice Reed", "1-3").names
    assert "Storm Keeper" in persona_at(again, "harbor", "Alice Reed", "2-3").names


def test_wren_at_the_end_of_book_1_knows_only_her_early_names_and_story(lanterns: CanonStore) -> None:
    persona = persona_at(lanterns, "lanterns", "Wren", "end of book 1")
    assert persona.name == "Wren Callow" and str(persona.position) == "1-3"
    assert list(persona.names) == ["Wren", "Wrennie"]
    assert persona.profile.startswith("Wren Callow is an apprentice")
    for later in ("Stormwren", "betray", "elected", "Lamp-Mistress"):
        assert later.lower() not in persona.profile.lower(), later
    assert "Stormwren" not in persona.personality
    assert persona.sources["profile"] == "whole story, cleaned"
    # The warning says what was held back and why, by field.
    warnings = " ".join(persona.warnings)
    assert "of the profile (whole story, cleaned) withheld" in warnings
    assert "of the personality (whole story, cleaned) withheld" in warnings
    # The warning is read by a person: it names no withheld name or word ...
    assert "stormwren" not in warnings.lower() and "betray" not in warnings
    assert "uses a name not yet in use" in warnings and "tells of later or missed events" in warnings
    # ... the author's form does.
    spoiling = " ".join(persona.spoiler_warnings)
    assert "stormwren" in spoiling.lower() and "betray" in spoiling
    withheld = " ".join(w.sentence for w in persona.withheld)
    assert "elected Lamp-Mistress" in withheld and "who betrays it" in withheld
    # Later time points are not even named.
    assert [t.label for t in persona.reached] == ["end of book 1"]


def test_wren_at_the_end_keeps_every_name(lanterns: CanonStore) -> None:
    persona = persona_at(lanterns, "lanterns", "Wren", "Lamp-Mistress")
    assert list(persona.names) == ["Wren", "Wrennie", "Stormwren", "Lamp-Mistress Callow"]
    assert "elected Lamp-Mistress" in persona.profile and "who betrays it" in persona.profile
    assert "hates the name Stormwren" in persona.personality


def test_a_time_points_own_profile_wins_over_the_whole_story_profile(tmp_path: Path) -> None:
    points = [
        {"label": "First night", "position": "1-1-1", "profile": "A newcomer at the pier."},
        {"label": "End of book 1", "position": "1", "personality": "Settled, still dry."},
        {"label": "After the storm", "position": "2-3", "profile": "The keeper who lost the pier."},
    ]
    store = _harbor_store(tmp_path, profile="A lighthouse keeper who survives the Great Storm.",
                          time_points=points)
    first = persona_at(store, "harbor", "Alice Reed", "First night")
    assert (first.profile, first.sources["profile"]) == ("A newcomer at the pier.", "time point First night")
    # Between points: the latest one at or before the position that gives a profile.
    middle = persona_at(store, "harbor", "Alice Reed", "2-1")
    assert middle.profile == "A newcomer at the pier."
    assert middle.personality == "Settled, still dry."
    assert persona_at(store, "harbor", "Alice Reed", "3-1").profile == "The keeper who lost the pier."
    assert all("Great Storm" not in p.profile for p in (first, middle))


def test_dated_profile_segments_give_only_those_begun_by_the_position(tmp_path: Path) -> None:
    segments = [{"text": "A lighthouse keeper."}, {"text": "Keeps the new lamp.", "from": "2-1"},
                {"text": "Lost the pier to the storm.", "from": "2-3"}]
    store = _harbor_store(tmp_path, profile=segments)
    assert persona_at(store, "harbor", "Alice Reed", "1-3").profile == "A lighthouse keeper."
    at_2_1 = persona_at(store, "harbor", "Alice Reed", "2-1")
    assert at_2_1.profile == "A lighthouse keeper. Keeps the new lamp."
    assert at_2_1.sources["profile"] == "dated segments" and not at_2_1.withheld
    assert persona_at(store, "harbor", "Alice Reed", "3").profile.endswith("Lost the pier to the storm.")
    # The segments survive an export as the list a world file gives.
    alice = next(c for c in store.export_world("harbor").characters if c.name == "Alice Reed")
    assert [(s.text, s.from_) for s in alice.profile_segments] == [(s["text"], s.get("from")) for s in segments]


def test_a_persona_at_the_axis_end_is_said_to_stand_at_the_end_of_the_story(lanterns: CanonStore) -> None:
    """The omniscient reader's place (book 2047) is no place in the story: the warnings, which a
    person reads, say "the end of the story" (RoleRAG's questions without a position stand there)."""
    from incanon.canon.position import end_of_story

    persona = persona_at(lanterns, "lanterns", "Ottilie Brand", end_of_story(lanterns.work("lanterns").axis))
    assert persona.warnings, "a persona with withheld sentences is needed for the check to mean anything"
    assert all(line.startswith("Ottilie Brand at the end of the story:") for line in persona.warnings)
    assert "2047" not in " ".join(persona.warnings + persona.spoiler_warnings)
