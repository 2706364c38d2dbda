"""The build asks whether a grouped name is a secret identity and where it comes out; the answer
becomes a secret alias dated by its reveal, and the person keeps its true name."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from pathlib import Path

from incanon.bench.timechara.scenes import ExtractedScene
from incanon.canon import CanonStore, World
from incanon.canon.horizon import Horizon
from incanon.canonbuild.cast import CharacterGroup, build_cast
from incanon.canonbuild.identities import find_secret_identities, two_identities
from incanon.canonbuild.pipeline import _character
from incanon.models import ScriptedModel
from incanon.templates import default_library

_TEXTS = [
    ("A man called Silas Crane knocked a child down in the lane, Tull told Ord.", ["Bram Tull", "Ord"]),
    ("Ord read the will of Doctor Vane: everything was to go to Silas Crane.", ["Ord"]),
    ("Doctor Vane drank the draught, and the face in the glass was Silas Crane's.", ["Doctor Vane"]),
    ("Ord read the confession: Aurel Vane and Silas Crane were one man.", ["Ord"]),
]


def _scenes() -> list[ExtractedScene]:
    return [ExtractedScene(1, i, 0, len(t), t, t, [], people, number=1) for i, (t, people) in enumerate(_TEXTS, 1)]


def _cast(scenes):
    counts = Counter({"Ord": 3, "Bram Tull": 1, "Doctor Vane": 1, "Silas Crane": 1})
    groups = [CharacterGroup(name="Ord"), CharacterGroup(name="Bram Tull"),
              CharacterGroup(name="Aurel Vane", aliases=["Doctor Vane", "Silas Crane"])]
    # The scenes list Crane as present where Tull only speaks of him: a helper's usual reading.
    scenes[0].participants.append("Silas Crane")
    return build_cast(counts, groups, scenes)


def _answer(**reply) -> ScriptedModel:
    return ScriptedModel([(r"grouped as one character", json.dumps(reply))])


def test_the_secret_becomes_a_dated_secret_alias_and_the_true_name_names_the_person() -> None:
    scenes = _scenes()
    cast = _cast(scenes)
    vane = cast.owner("Silas Crane")
    assert vane.name == "Silas Crane"  # in use first: what a build by first use alone would call him
    assert two_identities(vane) and not two_identities(cast.owner("Ord"))
    model = _answer(secret=True, secret_name="Silas Crane", true_name="Aurel Vane", revealed_in="1-3-1")
    result = asyncio.run(find_secret_identities(cast, scenes, "The Double Physician", model, default_library()))
    assert result.asked == 1 and result.problems == []
    assert vane.name == "Aurel Vane" and vane.secret == {"Silas Crane": "1-3-1"}
    prompt = model.calls[0].messages[0].content
    assert "Silas Crane" in prompt and "- 1-4-1: Ord read the confession" in prompt
    character = _character(vane, None, [])
    secret = character.secret_names["Silas Crane"]
    assert secret.revealed_in == ["1-3-1"] and "Silas Crane" in character.aliases


def test_the_built_store_keeps_the_lawyer_in_the_dark_until_the_reveal(tmp_path: Path) -> None:
    from incanon.canonbuild.pipeline import _scene

    scenes = _scenes()
    cast = _cast(scenes)
    model = _answer(secret=True, secret_name="Silas Crane", true_name="Aurel Vane", revealed_in="1-4-1")
    asyncio.run(find_secret_identities(cast, scenes, "The Double Physician", model, default_library()))
    world = World.model_validate({
        "work": {"id": "vane", "title": "The Double Physician"},
        "characters": [_character(m, None, []).model_dump(mode="json", by_alias=True) for m in cast.members],
        "scenes": [_scene(s, cast).model_dump(mode="json", by_alias=True) for s in scenes]})
    store = CanonStore.open(tmp_path / "canon")
    store.import_world(world)
    assert Horizon(store, "vane", "Ord", "1-2-1").hidden_identities == {"Aurel Vane": {"Silas Crane"}}
    assert Horizon(store, "vane", "Ord", "1-4-1").hidden_identities == {}


def test_an_answer_that_names_no_two_of_the_names_changes_nothing() -> None:
    scenes = _scenes()
    cast = _cast(scenes)
    model = _answer(secret=True, secret_name="Mr. Nobody", true_name="Aurel Vane", revealed_in="1-3-1")
    result = asyncio.run(find_secret_identities(cast, scenes, "The Double Physician", model, default_library()))
    assert cast.owner("Silas Crane").secret == {} and "left as one person" in result.problems[0]
    # A reveal at no scene: kept secret to the end, and said.
    model = _answer(secret=True, secret_name="Silas Crane", true_name="Aurel Vane", revealed_in="chapter nine")
    result = asyncio.run(find_secret_identities(cast, scenes, "The Double Physician", model, default_library()))
    assert cast.owner("Silas Crane").secret == {"Silas Crane": None}
    assert "not a scene position" in result.problems[0]
