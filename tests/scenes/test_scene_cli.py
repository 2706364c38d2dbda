"""``incanon scene`` in-process, as a shell runs it: a piped scene, kept and reopened, and errors
as one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from incanon.canon import CanonStore
from incanon.testing.cli import run_cli

from tests.canon.secret_world import secret_world

RULES = {"rules": [
    {"match": "Who acts next", "response": "Matthias Ord"},
    {"match": "Work out where in the story", "response": "Position: 1-2\nRelative: past"},
    {"match": "physically present", "response": "Verdict: present"},
], "default": "A wet night for a call, Vane."}


@pytest.fixture()
def setup(tmp_path: Path) -> dict[str, Path]:
    with CanonStore.open(tmp_path / "canon") as store:
        store.import_world(secret_world())
    (tmp_path / "rules.json").write_text(json.dumps(RULES))
    return {"dir": tmp_path, "canon": tmp_path / "canon", "rules": tmp_path / "rules.json"}


def _scene(setup: dict[str, Path], *args: str, lines: str = ""):
    return run_cli(["scene", "--store", setup["canon"], "--model", f"scripted:{setup['rules']}", "--no-cache",
                    "--scenes", setup["dir"] / "scenes.sqlite", *args], input=lines, cwd=setup["dir"],
                   env={**__import__("os").environ, "INCANON_HOME": str(setup["dir"] / "home")})


def test_a_piped_scene_speaks_moves_explains_and_saves(setup):
    lines = ("Rain at the window.\n/as Doctor Vane You look tired, Ord.\n/to Ord Vane's hands are shaking.\n"
             "/next\n/why\n/at 1-4-1\n/why Doctor Vane\n/save scene.json\n")
    res = _scene(setup, "--characters", "Ord,Doctor Vane", "--at", "1-2-1", lines=lines)
    assert res.returncode == 0, res.stderr
    assert res.stdout.count("Matthias Ord: A wet night for a call, Vane.") == 3
    assert "Whose scope answered: Matthias Ord at 1-2-1 (line 5, chosen by next-speaker prediction)" in res.stdout
    assert "Heard in this scene: 6 lines, 1 of them asides to Matthias Ord" in res.stdout
    assert "Knowledge scope: Matthias Ord at 1-2-1 in vane" in res.stdout
    assert "the scene is now at 1-4-1" in res.stdout
    assert "Aurel Vane has not answered yet." in res.stdout
    assert "scene saved to" in res.stdout
    scene_id = res.stderr.split("scene ", 1)[1].split(":", 1)[0]
    assert f"scene {scene_id}: Matthias Ord, Aurel Vane of The Double Physician at 1-2-1" in res.stderr
    saved = json.loads((setup["dir"] / "scene.json").read_text())
    assert [line["speaker"] for line in saved["lines"]] == [
        "narrator", "Matthias Ord", "Aurel Vane", "Matthias Ord", "narrator", "Matthias Ord"]
    assert saved["lines"][4]["heard_by"] == ["Matthias Ord"] and saved["at"] == "1-4-1"


def test_a_kept_scene_goes_on_with_reopen(setup):
    first = _scene(setup, "--characters", "Ord,Tull", "--at", "1-2-1", "--order", "round-robin",
                   lines="Rain at the window.\n")
    assert first.returncode == 0, first.stderr
    listed = _scene(setup, "--list")
    assert "vane  at 1-2-1  Matthias Ord, Bram Tull  2 lines" in listed.stdout
    again = _scene(setup, "--reopen", "last", "--json", lines="/next\n")
    assert again.returncode == 0, again.stderr
    kept = json.loads(again.stdout)
    assert [line["speaker"] for line in kept["lines"]] == ["narrator", "Matthias Ord", "Bram Tull"]
    assert kept["lines"][2]["chosen"] == "round-robin"


@pytest.mark.parametrize(("args", "message"), [
    (["--characters", "Ord", "--at", "1-2-1"], "error: a scene has 2 to 4 characters, got 1 (Matthias Ord)"),
    (["--at", "1-2-1"], "error: name the scene's characters with --characters"),
    (["--characters", "Ord,Tull", "--at", "1-2-1", "--order", "loudest"], "error: unknown turn order 'loudest'"),
    (["--reopen", "nope"], "error: no kept scene 'nope' (incanon scene --list shows them)"),
    (["--characters", "Ord,Tull", "--setting", "s9"], "error: unknown scene 's9' in work 'vane'"),
])
def test_a_wrong_command_is_one_line_and_exit_2(setup, args, message):
    res = _scene(setup, *args)
    assert res.returncode == 2
    assert res.stderr.strip().startswith(message) and len(res.stderr.strip().splitlines()) == 1, res.stderr


def test_an_error_inside_the_scene_is_one_line_and_the_scene_goes_on(setup):
    res = _scene(setup, "--characters", "Ord,Tull", "--at", "1-2-1", lines="/as Nobody hi\n/next Tull\n")
    assert res.returncode == 0
    assert "error: no character of the scene is named at the start of 'Nobody hi'" in res.stderr
    assert "Bram Tull: A wet night for a call, Vane." in res.stdout


def test_help_lists_the_scene_command():
    res = run_cli(["--help"])
    assert "scene" in res.stdout and "Put two to four characters together" in res.stdout


def test_save_to_a_folder_is_one_line_not_a_traceback_at_the_end(setup):
    """``/save DIR`` said one line, but the save when the scene ended raised IsADirectoryError."""
    folder = setup["dir"] / "scenes-out"
    folder.mkdir()
    res = _scene(setup, "--characters", "Ord,Doctor Vane", "--at", "1-2-1", "--save", str(folder),
                 lines="Rain at the window.\n")
    assert res.returncode == 2 and "Traceback" not in res.stderr, res.stderr
    assert res.stderr.strip().splitlines()[-1] == f"error: {folder} is a directory, expected a file; nothing was written"
    assert list(folder.iterdir()) == []


def test_save_to_a_device_writes_through_and_never_replaces_it(setup):
    import os
    import stat

    link = setup["dir"] / "scene.json"
    link.symlink_to("/dev/null")
    res = _scene(setup, "--characters", "Ord,Doctor Vane", "--at", "1-2-1", "--save", str(link),
                 lines="Rain at the window.\n/save\n")
    assert res.returncode == 0, res.stderr
    assert link.is_symlink() and stat.S_ISCHR(os.stat("/dev/null").st_mode)
