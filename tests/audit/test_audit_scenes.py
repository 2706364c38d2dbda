"""Scenes as a surface of ``incanon canon audit``: scenes played with the scene engine, every
character's prompts and replies read by the word check and the canary check, reported per scene
and character; a planted leak (a later scene's summary in one character's situation) fails the
audit with exit 1, by both checks, and only for that character."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from incanon.audit.scenes import ASIDE, SceneSpec, audit_scenes, book_scenes, parse_scene, script
from incanon.canon import CanonStore, write_world_file
from incanon.cli.main import app
from incanon.errors import InputError
from incanon.graph import HashEmbedder
from incanon.scenes import SceneSession
from incanon.testing.cli import run_cli

from tests.canon.secret_world import secret_world


@pytest.fixture
def vane(tmp_path: Path):
    store = CanonStore.open(tmp_path / "canon")
    store.import_world(secret_world())
    yield store
    store.close()


@pytest.fixture
def vane_cli(tmp_path: Path) -> Path:
    """The Jekyll-like world imported by the CLI (the store's folder)."""
    world = write_world_file(secret_world(), tmp_path / "vane.json")
    result = CliRunner().invoke(app, ["canon", "import", str(world), "--store", str(tmp_path / "cli-canon")])
    assert result.exit_code == 0, result.output
    return tmp_path / "cli-canon"


def _audit(store: Path, *args: str) -> tuple[int, dict]:
    """``incanon canon audit`` run in this process as a shell runs it (exit code, its JSON)."""
    result = run_cli(["canon", "audit", "--store", str(store), *args, "--json"])
    return result.returncode, json.loads(result.stdout) if result.stdout.strip() else {"error": result.stderr}


class LaterSituation(SceneSession):
    """A broken builder: Ord's situation is told the summary of a scene after 1-2-1 he was not in
    (Vane alone, becoming Crane, 1-3-1)."""

    def staged(self, name):  # noqa: ANN001, ANN201 - the override under test
        who = super().staged(name)
        if name != "Matthias Ord":
            return who
        later = self.store.scene(self.work, "s3")
        return who.model_copy(update={"time_description": f"{who.time_description} {later.summary}"})


def test_scenes_are_named_as_the_cli_takes_them(vane):
    assert parse_scene("Ord, Doctor Vane@the will") == SceneSpec(("Ord", "Doctor Vane"), "the will")
    assert parse_scene("s1") == SceneSpec(setting="s1") and parse_scene("s1").label == "scene s1"
    for bad in ("Ord@1-2-1", "A,B,C,D,E@1-2-1", "Ord,Tull@", "  "):
        with pytest.raises(InputError):
            parse_scene(bad)
    assert book_scenes(vane, "vane") == [SceneSpec(("Matthias Ord", "Bram Tull"), "1-1-1", "s1")]
    assert book_scenes(vane, "vane", ["Doctor Vane"]) == []
    lines = script(["Matthias Ord", "Bram Tull"])
    assert lines.count("/next") == 2 and f"/to Bram Tull {ASIDE}" in lines and lines[-1] == "/next Bram Tull"


def test_every_character_of_a_played_scene_is_read_and_clean(vane):
    spec = parse_scene("Ord,Doctor Vane,Tull@1-2-1")
    audit = asyncio.run(audit_scenes(vane, "vane", [spec], embedder=HashEmbedder()))
    rows = {(r["character"], r["surface"]): r for r in audit.table()}
    assert set(rows) == {(c, s) for c in ("Matthias Ord", "Aurel Vane", "Bram Tull")
                         for s in ("scene prompt", "scene evidence", "scene reply")}
    assert all(r["turns"] >= 3 for r in rows.values())
    assert audit.strict_leaks() == 0, [f.to_dict() for f in audit.findings if f.leaks.total]
    assert audit.canaries.planted > 10 and audit.canaries.checked >= 20 and audit.canary_leaks() == 0


def test_a_planted_leak_fails_the_audit_for_that_character_only(vane_cli, monkeypatch):
    code, clean = _audit(vane_cli, "--surface", "scenes", "--scene", "Ord,Doctor Vane@1-2-1")
    assert code == 0 and clean["scenes"]["strict_leaks"] == 0 and clean["scenes"]["canaries"]["leaks"] == 0
    assert "table" not in clean  # the points were not audited

    monkeypatch.setattr("incanon.audit.scenes.SceneSession", LaterSituation)
    code, data = _audit(vane_cli, "--surface", "scenes", "--scene", "Ord,Doctor Vane@1-2-1")
    assert code == 1
    scenes = data["scenes"]
    leaking = {(f["character"], f["surface"]) for f in scenes["findings"]}
    # His prompt, and his answers' evidence (it carries the calls, as a client is shown them).
    assert leaking == {("Matthias Ord", "scene prompt"), ("Matthias Ord", "scene evidence")}
    assert all("draught" in f["items"]["hidden_terms"] for f in scenes["findings"])
    found = scenes["canaries"]["found"]
    assert found and {(f["character"], f["planted_in"]) for f in found} == {("Matthias Ord", "s3")}


def test_replies_of_a_real_model_are_reported_not_failed_on(vane_cli, tmp_path):
    # A model that names what Ord cannot know at 1-2-1: what the model says is its own.
    rules = tmp_path / "model.json"
    rules.write_text(json.dumps({"rules": [], "default": "Vane drinks the draught in his laboratory."}))
    code, data = _audit(vane_cli, "--scene", "Ord,Doctor Vane@1-2-1", "--scene-model", f"scripted:{rules}",
                        "--no-canaries")
    scenes = data["scenes"]
    replies = [r for r in scenes["table"] if r["character"] == "Matthias Ord" and r["surface"] == "scene reply"]
    assert replies and replies[0]["hidden_terms"] > 0
    assert scenes["scripted"] is False and scenes["strict_leaks"] == 0 and code == 0
    assert all(r["total"] == 0 for r in scenes["table"] if r["surface"] != "scene reply")


def test_a_wrong_surface_or_scene_is_one_line(vane_cli):
    result = run_cli(["canon", "audit", "--store", str(vane_cli), "--surface", "rooms"])
    assert result.returncode == 2 and result.stderr.strip() == "error: --surface 'rooms': choose points or scenes"
    result = run_cli(["canon", "audit", "--store", str(vane_cli), "--scene", "Ord,Nobody@1-2-1"])
    assert result.returncode == 2 and "error: unknown character 'Nobody'" in result.stderr
