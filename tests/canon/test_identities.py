"""Secret identities: who knows that two names are one person is knowledge, dated by scenes
witnessed and facts told, never by when the name is first used."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from incanon.agents.persona import character_at
from incanon.agents.zero_shot import persona_prompt
from incanon.canon import CanonStore, World
from incanon.canon.horizon import Horizon
from incanon.canon.persona import persona_at
from incanon.errors import InputError

from tests.canon.secret_world import secret_world


@pytest.fixture()
def vane(tmp_path: Path) -> CanonStore:
    store = CanonStore.open(tmp_path / "canon")
    store.import_world(secret_world())
    yield store
    store.close()


def test_a_secret_name_survives_import_and_export(vane: CanonStore) -> None:
    record = vane.character("vane", "Silas Crane")
    assert record.name == "Aurel Vane"
    (secret,) = record.secret_names
    assert secret.alias == "Silas Crane" and secret.revealed_in == ("s3", "s4")
    assert str(secret.revealed_at) == "1-3-1"
    again = vane.export_world("vane")
    assert again.model_dump(mode="json") == secret_world().model_dump(mode="json")


def test_a_secret_is_revealed_in_scenes_that_exist(tmp_path: Path) -> None:
    data = secret_world().model_dump(mode="json")
    data["characters"][2]["aliases"][1]["revealed_in"] = ["s9"]
    with pytest.raises(InputError, match=r"characters\[2\]\.aliases\[1\]\.revealed_in\[0\]: unknown scene 's9'"):
        CanonStore.open(tmp_path / "a").import_world(World.model_validate(data))
    data = secret_world().model_dump(mode="json")
    data["characters"][2]["aliases"][1]["known_by"] = ["Aurel Vane"]
    with pytest.raises(InputError, match=r"known_by\[0\]: 'Aurel Vane' is the character itself"):
        CanonStore.open(tmp_path / "b").import_world(World.model_validate(data))


def test_the_character_knows_its_secret_and_the_reader_learns_it_at_the_reveal(vane: CanonStore) -> None:
    early = persona_at(vane, "vane", "Aurel Vane", "1-2-1")
    assert early.names == ("Doctor Vane",) and early.secret_names == ("Silas Crane",)
    assert "Silas Crane" not in str(early.to_dict())
    prompt = persona_prompt(_agent(), character_at(vane, "vane", "Aurel Vane", "1-2-1", warn=False))
    assert "In secret you are also Silas Crane" in prompt and "also called Doctor Vane)" in prompt
    revealed = persona_at(vane, "vane", "Aurel Vane", "1-3-1")
    assert revealed.names == ("Doctor Vane", "Silas Crane")


def test_others_learn_it_from_the_scene_that_reveals_it_to_them(vane: CanonStore) -> None:
    before = Horizon(vane, "vane", "Matthias Ord", "1-3-1")  # the reader knows now; Ord does not
    assert before.hidden_identities == {"Aurel Vane": {"Silas Crane"}}
    assert ("Silas Crane", ()) in before.people and ("Aurel Vane", ("Doctor Vane",)) in before.people
    assert before.book.owners["silas crane"] == "Silas Crane"
    after = Horizon(vane, "vane", "Matthias Ord", "1-4-1")
    assert after.hidden_identities == {}
    assert after.book.owners["silas crane"] == "Aurel Vane"
    # Tull never witnesses a reveal.
    assert Horizon(vane, "vane", "Bram Tull", "1-4-1").hidden_identities == {"Aurel Vane": {"Silas Crane"}}


def test_a_fact_told_to_someone_tells_them_the_identity(tmp_path: Path) -> None:
    data = secret_world().model_dump(mode="json")
    data["facts"] = [{"id": "f1", "subject": "Aurel Vane", "position": "1-2-1", "known_by": ["Bram Tull"],
                      "text": "Aurel Vane and Silas Crane are one man."}]
    store = CanonStore.open(tmp_path / "canon")
    store.import_world(World.model_validate(data))
    assert Horizon(store, "vane", "Bram Tull", "1-1-1").hidden_identities == {"Aurel Vane": {"Silas Crane"}}
    assert Horizon(store, "vane", "Bram Tull", "1-2-1").hidden_identities == {}
    assert Horizon(store, "vane", "Matthias Ord", "1-2-1").hidden_identities == {"Aurel Vane": {"Silas Crane"}}


def _agent():
    from incanon.agents.registry import create_agent
    from incanon.models.scripted import ScriptedModel

    return create_agent("zero-shot", ScriptedModel([]))
