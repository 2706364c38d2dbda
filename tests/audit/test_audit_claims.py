"""The world's own claims read against the story (``incanon.audit.claims``): honest worlds give
no finding, and each planted form of a wrong claim is named with why and where."""

from __future__ import annotations

from pathlib import Path

import pytest

from incanon.audit.claims import claim_check
from incanon.audit.run import audit_points
from incanon.canon import CanonStore, World
from incanon.sample import sample_world

from incanon.testing.first_person import first_person_world


def _claims(tmp_path: Path, world: World) -> list:
    with CanonStore.open(tmp_path / f"canon-{len(list(tmp_path.iterdir()))}") as store:
        store.import_world(world)
        return claim_check(store, world.work.id, audit_points(store, world.work.id))


def _character(world: World, name: str):
    return next(c for c in world.characters if c.name == name)


@pytest.mark.parametrize("world", [sample_world, first_person_world])
def test_honest_worlds_give_no_finding(tmp_path: Path, world) -> None:
    assert _claims(tmp_path, world()) == []


def _plant_later_sentence(world: World) -> str:
    scene = next(s for s in world.scenes if s.id == "2-3-1")
    _character(world, "Wren Callow").time_points[0].description += " " + scene.summary
    return "sentence tells a later event"


def _plant_paraphrase(world: World) -> str:
    _character(world, "Wren Callow").time_points[0].description += (
        " In the storm the Greatgate gives way, a torn shutter breaks Ottilie's leg and Wren lights the beacon.")
    return "sentence tells a later event"


def _plant_alias_from_the_start(world: World) -> str:
    wren = _character(world, "Wren Callow")
    wren.alias_from.pop("Stormwren")
    return "alias dated too early"


def _plant_relation_from_childhood(world: World) -> str:
    for r in world.relations:
        if (r.source, r.target, r.type) == ("Jory Callow", "Ilse Varga", "husband"):
            r.valid_from = None
    return "relation dated too early"


def _plant_label(world: World) -> str:
    _character(world, "Wren Callow").time_points[0].label = "before Ottilie breaks her leg"
    return "label names a later event"


def _plant_absent_participant(world: World) -> str:
    first = next(s for s in world.scenes if s.id == "1-1-1")
    first.participants.append("Brother Tobiah")
    return "present but never named"


@pytest.mark.parametrize("plant", [_plant_later_sentence, _plant_paraphrase, _plant_alias_from_the_start,
                                   _plant_relation_from_childhood, _plant_label, _plant_absent_participant])
def test_each_planted_claim_is_named(tmp_path: Path, plant) -> None:
    world = sample_world()
    kind = plant(world)
    found = _claims(tmp_path, world)
    assert [c.kind for c in found] == [kind], [c.to_dict() for c in found]
    assert found[0].why and found[0].where


def test_a_listed_narrator_is_not_named_and_that_is_fine(tmp_path: Path) -> None:
    # Elias tells the story in the first person: present everywhere, named nowhere.
    assert not [c for c in _claims(tmp_path, first_person_world()) if "Elias" in c.item]
    planted = first_person_world()
    planted.scenes[0].participants.append("Nell Ashby")  # Nell was not in Oren's study
    assert [c.item for c in _claims(tmp_path, planted)] == ["Nell Ashby at scene s1"]


def test_each_finding_is_one_line_naming_what_why_and_where(capsys: pytest.CaptureFixture[str]) -> None:
    from types import SimpleNamespace

    from incanon.audit.canaries import Canary, CanaryFinding, CanaryReport
    from incanon.audit.claims import Claim
    from incanon.canon.position import Position
    from incanon.cli.audit import _points_verdict

    canary = Canary("chunk", "c2 (narration of Elias Marr)", Position.parse("1-2-1"), scene="s2")
    report = SimpleNamespace(
        misplaced=[], identities=[], claims=[Claim("label names a later event", "before the fall", "its words ...",
                                                   "time point Nell@before the fall", "Nell", "1-1")],
        canaries=CanaryReport(planted=9, checked=3, found=[CanaryFinding("prompt", "in-canon", "Nell Ashby", "1-3-1",
                                                                         canary)]),
        strict_leaks=lambda: 0, canary_leaks=lambda: 1, misplaced_strict=lambda: 0, identity_leaks=lambda: 0,
        claim_leaks=lambda: 1)
    assert _points_verdict(report) is True
    err = capsys.readouterr().err
    assert "error: label names a later event: before the fall: its words ... (time point Nell@before the fall)" in err
    assert ("error: chunk c2 (narration of Elias Marr) (1-2-1) in the prompt (in-canon) of Nell Ashby at 1-3-1: "
            "a part of the text Nell Ashby did not perceive") in err
