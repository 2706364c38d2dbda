"""``incanon chat`` with piped stdin and a scripted model."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from chat_helpers import TEMPORAL
from incanon.testing.cli import run_cli

AGENT = {"rules": [{"match": TEMPORAL, "response": "Position: 3-4\nRelative: future"}],
         "default": "Evening. The lamps won't light themselves."}


def _chat(*args: str, stdin: str, home: Path, process: bool = False) -> subprocess.CompletedProcess:
    """``incanon chat ARGS`` with ``stdin`` piped in: in this process, or with ``process`` a real
    one reading a real pipe to its end."""
    env = dict(os.environ, INCANON_HOME=str(home))
    if not process:
        return run_cli(["chat", *args], input=stdin, env=env, timeout=600)
    return subprocess.run([sys.executable, "-m", "incanon", "chat", *args], input=stdin,
                          capture_output=True, text=True, env=env, timeout=600)


@pytest.fixture
def agent_spec(tmp_path: Path) -> str:
    path = tmp_path / "agent.json"
    path.write_text(json.dumps(AGENT))
    return f"scripted:{path}"


def test_piped_chat_with_commands_and_save(tmp_path, chat_store_dir, agent_spec):
    lines = ["Hello, who are you?", "/method telepathy", "/at nowhere-in-particular", "/at end of book 2",
             "/method narrative-experts", "Will you be Lamp-Mistress one day?", "/why", "/help", "/quit",
             "never read"]
    res = _chat("--store", str(chat_store_dir), "--character", "Wren", "--at", "end of book 1",
                "--model", agent_spec, "--no-cache", "--save", str(tmp_path / "chat.json"),
                stdin="\n".join(lines) + "\n", home=tmp_path, process=True)
    assert res.returncode == 0, res.stderr
    out = res.stdout.splitlines()
    assert out[0] == "Wren Callow: Evening. The lamps won't light themselves."
    assert "Wren Callow is now at 2-4 (end of book 2)" in out and "method is now narrative-experts" in out
    assert "Knowledge scope: Wren Callow at 2-4 in lanterns" in out
    assert any(line.startswith("Last answer: method narrative-experts, at 2-4") for line in out)
    assert any("later in the story" in line for line in out)  # the future hint, shown by /why
    assert any(line.strip().startswith("/save [FILE]") for line in out)
    errors = [line for line in res.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 2 and "unknown role-play method 'telepathy'" in errors[0]
    assert "unknown story position 'nowhere-in-particular'" in errors[1]
    assert "Traceback" not in res.stderr
    doc = json.loads((tmp_path / "chat.json").read_text())  # saved when the chat ended
    assert len(doc["turns"]) == 4 and [p["at"] for p in doc["positions"]] == ["1-3", "2-4"]


def test_json_transcript_on_stdout(tmp_path, chat_store_dir, agent_spec):
    res = _chat("--store", str(chat_store_dir), "-c", "Wren Callow", "--at", "1-3", "--model", agent_spec,
                "--no-cache", "--json", stdin="Hi\n\n/at 2-3-1\nStill there?\n", home=tmp_path)
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert [t["speaker"] for t in doc["turns"]] == ["user", "Wren Callow", "user", "Wren Callow"]
    assert doc["turns"][3]["at"] == "2-3-1" and doc["model"] == agent_spec


def test_startup_errors_exit_2_with_one_line(tmp_path, chat_store_dir, agent_spec):
    for args, expected in (
        (["--character", "Nobody", "--at", "1-3"], "unknown character 'Nobody'"),
        (["--character", "Wren", "--at", "the end of time"], "unknown story position 'the end of time'"),
        (["--character", "Wren", "--at", "1-3", "--method", "telepathy"], "unknown role-play method 'telepathy'"),
    ):
        res = _chat("--store", str(chat_store_dir), "--model", agent_spec, "--no-cache", *args, stdin="", home=tmp_path)
        assert res.returncode == 2, res.stderr
        assert expected in res.stderr and "Traceback" not in res.stderr
    res = _chat("--store", str(tmp_path / "missing"), "--character", "Wren", "--at", "1-3", stdin="", home=tmp_path)
    assert res.returncode == 2 and "no canon store" in res.stderr


def test_without_a_store_the_sample_world_is_loaded(tmp_path, agent_spec):
    res = _chat("--character", "Stormwren", "--at", "the night of the flood", "--model", agent_spec, "--no-cache",
                stdin="Hello\n", home=tmp_path)
    assert res.returncode == 0, res.stderr
    assert "sample world" in res.stderr and (tmp_path / "canon").is_dir()
    assert res.stdout.startswith("Wren Callow: Evening.")


def test_method_options_reach_the_method(tmp_path, chat_store_dir, agent_spec):
    res = _chat("--store", str(chat_store_dir), "--character", "Wren", "--at", "end of book 2", "--method",
                "rag-cutoff", "--model", agent_spec, "--no-cache", "-o", "k=1", "--json",
                stdin="Who rang the bell?\n", home=tmp_path)
    assert res.returncode == 0, res.stderr
    (turn,) = [t for t in json.loads(res.stdout)["turns"] if t["speaker"] != "user"]
    assert len(turn["evidence"]["chunks"]) == 1
    bad = _chat("--store", str(chat_store_dir), "--character", "Wren", "--at", "1-3", "--model", agent_spec,
                "-o", "k", stdin="", home=tmp_path)
    assert bad.returncode == 2 and "--option 'k'" in bad.stderr


def test_save_to_a_folder_is_one_line_before_the_chat_starts(tmp_path, chat_store_dir, agent_spec):
    """It used to run the whole chat, then end on IsADirectoryError with a traceback (exit 1)."""
    folder = tmp_path / "chats"
    folder.mkdir()
    res = _chat("--store", str(chat_store_dir), "--character", "Wren", "--at", "end of book 1",
                "--model", agent_spec, "--no-cache", "--save", str(folder), stdin="Hello?\n", home=tmp_path)
    assert res.returncode == 2 and "Traceback" not in res.stderr, res.stderr
    assert res.stderr.strip().splitlines() == [f"error: {folder} is a directory, expected a file; nothing was written"]
    assert res.stdout == "" and list(folder.iterdir()) == []


def test_save_through_a_symlink_writes_its_target_and_keeps_the_link(tmp_path, chat_store_dir, agent_spec):
    (tmp_path / "synced").mkdir()
    (tmp_path / "synced" / "chat.json").write_text("{}\n")
    link = tmp_path / "chat.json"
    link.symlink_to(tmp_path / "synced" / "chat.json")
    folder = tmp_path / "a-folder"
    folder.mkdir()
    res = _chat("--store", str(chat_store_dir), "--character", "Wren", "--at", "end of book 1",
                "--model", agent_spec, "--no-cache", "--save", str(link),
                stdin=f"Hello?\n/save {folder}\nStill there?\n", home=tmp_path)
    assert res.returncode == 0, res.stderr
    assert f"error: {folder} is a directory, expected a file; nothing was written" in res.stderr  # and it went on
    assert link.is_symlink() and len(json.loads((tmp_path / "synced" / "chat.json").read_text())["turns"]) == 4
