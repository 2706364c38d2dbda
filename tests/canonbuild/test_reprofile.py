"""An imported character whose whole-story profile is all later events keeps nothing; `canon
profiles` writes its time points from the scenes it witnessed, and from nothing later or missed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from incanon.canon import CanonStore, World, write_world_file
from incanon.canon.persona import persona_at
from incanon.cli.main import app

_WORLD = {
    "work": {"id": "moor", "title": "The Moor's Ensign", "axis": "chapter"},
    "characters": [
        {"name": "Ansel Grey", "first_position": "1-1-1",
         "profile": "Ansel Grey poisons the governor in the last act. The governor dies of the poison."},
        {"name": "Rook", "first_position": "1-1-1", "profile": "Rook is a boatman of the bay who rows anyone across for a coin and asks nothing."},
    ],
    "scenes": [
        {"id": "a", "position": "1-1-1", "summary": "Ansel and Rook row across the bay at night.",
         "participants": ["Ansel Grey", "Rook"]},
        {"id": "b", "position": "1-2-1", "summary": "Rook alone hides the letter under the jetty.",
         "participants": ["Rook"]},
        {"id": "c", "position": "2-1-1", "summary": "Ansel poisons the governor.",
         "participants": ["Ansel Grey"]},
    ],
    "chunks": [
        {"id": "a1", "position": "1-1-1", "scene": "a", "text": "The oars dipped; BAYCROSSING was quiet."},
        {"id": "b1", "position": "1-2-1", "scene": "b", "text": "Rook pushed the letter under the JETTYBOARD."},
        {"id": "c1", "position": "2-1-1", "scene": "c", "text": "The cup went round; GOVERNORCUP was poured."},
    ],
}


@pytest.fixture()
def imported(tmp_path: Path) -> Path:
    path = write_world_file(World.model_validate(_WORLD), tmp_path / "moor.json")
    store = tmp_path / "canon"
    assert CliRunner().invoke(app, ["canon", "import", str(path), "--store", str(store)]).exit_code == 0
    return store


def _helper(tmp_path: Path, reply: dict | None) -> str:
    rules = {"rules": [], "default": json.dumps(reply) if reply is not None else "not json"}
    path = tmp_path / "helper.json"
    path.write_text(json.dumps(rules), encoding="utf-8")
    return f"scripted:{path}"


def test_a_thin_persona_is_written_from_witnessed_scenes(imported: Path, tmp_path: Path) -> None:
    with CanonStore.open(imported) as store:
        assert persona_at(store, "moor", "Ansel Grey", "1-1-1").profile == ""  # every sentence is later
    sheet = {"profile": "Ansel Grey keeps his own counsel, always.", "personality": "Quiet.", "situation": "Afloat."}
    result = CliRunner().invoke(app, ["canon", "profiles", "--store", str(imported), "--helper",
                                      _helper(tmp_path, sheet), "--no-cache", "--json"])
    assert result.exit_code == 0, result.output
    (done,) = json.loads(result.stdout)["characters"]
    assert done["character"] == "Ansel Grey" and done["thin_at"] == ["1-1-1"]
    assert done["written"] == ["first appearance", "end of book 1, chapter 1", "end of book 2, chapter 1"]
    with CanonStore.open(imported) as store:
        persona = persona_at(store, "moor", "Ansel Grey", "1-1-1")
        assert persona.profile == sheet["profile"] and persona.sources["profile"] == "time point first appearance"
        # Rook kept his one sentence: not thin, not rewritten.
        assert not store.character("moor", "Rook").time_points


def test_the_helper_reads_only_what_the_character_witnessed_up_to_each_point(imported: Path) -> None:
    import asyncio

    from incanon.canonbuild.reprofile import reprofile
    from incanon.models import ScriptedModel
    from incanon.templates import default_library

    model = ScriptedModel(default=json.dumps({"profile": "p", "personality": "q", "situation": "r"}))
    with CanonStore.open(imported) as store:
        asyncio.run(reprofile(store, "moor", model, default_library()))
    first, _, last = (c.messages[-1].content for c in model.calls)
    assert "BAYCROSSING" in first and "GOVERNORCUP" not in first
    assert "GOVERNORCUP" in last
    # Rook's scene without Ansel never reaches Ansel's sheets.
    assert not any("JETTYBOARD" in c.messages[-1].content for c in model.calls)


def test_a_helper_whose_every_answer_fails_leaves_the_store_unchanged(imported: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["canon", "profiles", "--store", str(imported), "--helper",
                                      _helper(tmp_path, None), "--no-cache"])
    assert result.exit_code == 1 and "store is unchanged" in result.stderr
    with CanonStore.open(imported) as store:
        assert not store.character("moor", "Ansel Grey").time_points
