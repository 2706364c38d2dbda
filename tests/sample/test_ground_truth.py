"""The annotations agree with the text, the script and themselves."""

from __future__ import annotations

from collections import Counter

import pytest

from incanon.canon.position import Axis
from incanon.sample import fold

from .conftest import pos


def test_script_sessions_match_annotated_session_scenes(sessions, annotations, names):
    assert 8 <= len(sessions) <= 12
    annotated = {s["id"]: s for s in annotations["scenes"] if s["id"].startswith("session-")}
    assert set(annotated) == {s.id for s in sessions}
    for session in sessions:
        scene = annotated[session.id]
        speakers = [names[fold(sp)] for sp in session.speakers]  # every speaker is a known name
        assert scene["speakers"] == speakers, session.id
        assert set(speakers) <= set(scene["participants"])
        assert (scene["date"], scene["position"]) == (session.date, session.position)
        assert [m["speaker"] for m in scene["messages"]] == [names[fold(t.speaker)] for t in session.utterances]
        assert [m["speech"] for m in scene["messages"]] == [t.text for t in session.utterances]
        assert len(speakers) >= 3, session.id
        assert 15 <= len(session.utterances) <= 40, session.id


def test_sessions_belong_to_book_two_and_three_and_some_miss_main_characters(sessions, scenes):
    books = Counter(pos(s.position).book for s in sessions)
    assert books[2] >= 3 and books[3] >= 3
    assert any("Ottilie Brand" not in scenes[s.id].participants for s in sessions)
    assert sum("Wren Callow" not in scenes[s.id].participants for s in sessions) >= 1


def test_every_name_resolves(world, names):
    for scene in world.scenes:
        for name in [*scene.participants, *scene.speakers, *(m.speaker for m in scene.messages)]:
            assert fold(name) in names, (scene.id, name)
        assert set(scene.speakers) <= set(scene.participants), scene.id
    for rel in world.relations:
        assert fold(rel.source) in names and fold(rel.target) in names, rel
    for fact in world.facts:
        assert fold(fact.subject) in names, fact.id
        assert all(fold(n) in names for n in fact.known_by)
    characters = {c.name for c in world.characters}
    assert {p.character for p in world.probes} <= characters


def test_aliases_are_unambiguous(world):
    owners: dict[str, str] = {}
    for c in world.characters:
        for name in [c.name, *c.aliases]:
            assert owners.setdefault(fold(name), c.name) == c.name, name
    for e in world.entities:
        for name in [e.name, *e.aliases]:
            if e.type != "character":
                assert fold(name) not in owners, name


def test_characters_are_complete(world):
    assert len(world.characters) >= 7
    assert sum(bool(c.aliases) for c in world.characters) >= 7
    for c in world.characters:
        assert 80 <= len(c.profile.split()) <= 150, c.name
        assert 40 <= len(c.personality.split()) <= 80, c.name
        assert 2 <= len(c.time_points) <= 5, c.name
        assert c.first_position
        labels = [tp.label for tp in c.time_points]
        assert len(set(labels)) == len(labels)
        assert [pos(tp.position).key for tp in c.time_points] == sorted(pos(tp.position).key for tp in c.time_points)
    main = [c for c in world.characters if len(c.time_points) >= 3]
    assert len(main) >= 8


def test_relations_change_over_time(world):
    assert any(r.valid_to for r in world.relations)
    assert any(r.valid_from for r in world.relations)
    assert {"high", "low"} <= {r.affection for r in world.relations}

    def spans(source, target):
        return sorted(
            (pos(r.valid_from or "0").key, r.affection, r.type)
            for r in world.relations if (r.source, r.target) == (source, target) and r.affection
        )

    # rivals become partners; a friendship breaks; a captain turns on his master
    assert [a for _, a, _ in spans("Wren Callow", "Dace Morrow")] == ["low", "high"]
    assert [a for _, a, _ in spans("Wren Callow", "Sefa Quill")] == ["high", "low"]
    assert [a for _, a, _ in spans("Garrick Rusk", "Aldric Hame")] == ["high", "low"]
    for r in world.relations:
        if r.valid_from and r.valid_to:
            assert pos(r.valid_from) < pos(r.valid_to)


def test_facts_are_anchored_and_some_expire(world, scenes):
    assert len(world.facts) >= 40
    assert len({f.id for f in world.facts}) == len(world.facts)
    for f in world.facts:
        assert f.scene or f.public or f.known_by, f.id
        if f.scene:
            assert scenes[f.scene].position == f.position, f.id
        if f.valid_to:
            assert pos(f.valid_to) > pos(f.position)
    assert sum(bool(f.valid_to) for f in world.facts) >= 5
    assert sum(f.public for f in world.facts) >= 10
    assert sum(bool(f.known_by) for f in world.facts) >= 3


@pytest.mark.parametrize(
    "fact_id",
    ["f-ottilie-dies", "f-married", "f-betrayal", "f-exposed", "f-light-smashed", "f-ledger-burned",
     "f-lamp-mistress", "f-fled"],
)
def test_late_events_happen_in_book_three(world, fact_id):
    fact = next(f for f in world.facts if f.id == fact_id)
    assert pos(fact.position).book == 3


def _expected_type(probe, scenes, facts):
    at = pos(probe.at)
    if probe.event in scenes:
        event = scenes[probe.event]
        if pos(event.position) > at:
            return "future"
        return "past-presence" if probe.character in event.participants else "past-absence"
    fact = facts[probe.event]
    return "future" if pos(fact.position) > at else "past-only"


def test_probe_data_types_agree_with_positions_and_participants(world, scenes):
    facts = {f.id: f for f in world.facts}
    for probe in world.probes:
        assert probe.event in scenes or probe.event in facts, probe.event
        assert probe.data_type == _expected_type(probe, scenes, facts), (probe.character, probe.at, probe.event)


def test_probe_coverage(world):
    assert len(world.probes) >= 24
    counts = Counter(p.data_type for p in world.probes)
    assert all(counts[t] >= 4 for t in ("future", "past-absence", "past-presence", "past-only")), counts
    time_points = {c.name: {tp.position for tp in c.time_points} for c in world.characters}
    by_character: dict[str, set[str]] = {}
    for probe in world.probes:
        assert probe.at in time_points[probe.character], (probe.character, probe.at)
        assert pos(probe.at).axis is Axis.CHAPTER
        assert probe.question.endswith("?") and len(probe.gold_response.split()) >= 8
        by_character.setdefault(probe.character, set()).add(probe.at)
    assert sum(len(ats) >= 2 for ats in by_character.values()) >= 4


def test_future_gold_responses_do_not_leak_the_event(world, scenes):
    leaks = {"3-2-2": ["died", "dead."], "3-3-1": ["married"], "2-4-1": ["called me", "crowd"]}
    for probe in world.probes:
        if probe.data_type == "future" and probe.event in leaks:
            for word in leaks[probe.event]:
                assert word not in probe.gold_response.lower(), (probe.event, word)
