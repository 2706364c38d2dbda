"""SIGTERM (``kill``, a container stopping) to ``chat``, ``scene`` and ``canon build`` ends them
with one line, as Ctrl-C does, and keeps their state. A real process: the signal is the subject."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from incanon.canon import CanonStore
from incanon.testing.worlds import mini_world

ROOT = Path(__file__).resolve().parents[2]


def _start(args: list[str], home: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "INCANON_HOME": str(home)}
    return subprocess.Popen([sys.executable, "-m", "incanon", *args], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def _wait_for(proc: subprocess.Popen[str], text: str) -> list[str]:
    """Read stderr until a line holds ``text`` (the command is then waiting for input)."""
    assert proc.stderr is not None
    seen: list[str] = []
    while not any(text in line for line in seen):
        line = proc.stderr.readline()
        assert line, "".join(seen) + f"\n(exit {proc.wait()})"
        seen.append(line)
    return seen


def _terminate(proc: subprocess.Popen[str], seen: list[str]) -> tuple[str, str]:
    time.sleep(0.3)  # now blocked reading stdin, which stays open
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    err = "".join(seen) + err
    assert proc.returncode == 143, err  # was -15: killed without a word
    assert "Traceback" not in err
    return out, err


@pytest.fixture
def world(tmp_path: Path) -> dict[str, Path]:
    with CanonStore.open(tmp_path / "canon") as store:
        store.import_world(mini_world())
    rules = tmp_path / "agent.json"
    rules.write_text(json.dumps({"rules": [], "default": "Evening."}))
    return {"canon": tmp_path / "canon", "model": rules, "home": tmp_path / "home"}


@pytest.mark.timeout(120)
def test_sigterm_ends_a_chat_with_one_line_and_saves_it(world, tmp_path):
    save = tmp_path / "chat.json"
    proc = _start(["chat", "--store", str(world["canon"]), "--character", "Wren", "--at", "end of book 1",
                   "--model", f"scripted:{world['model']}", "--no-cache", "--save", str(save)], world["home"])
    assert proc.stdin is not None
    proc.stdin.write("Hello?\n")
    proc.stdin.flush()
    assert proc.stdout is not None and proc.stdout.readline().strip().endswith("Evening.")  # answered
    _, err = _terminate(proc, [])
    assert err.strip().splitlines()[-1] == "terminated: the chat ended"
    assert len(json.loads(save.read_text())["turns"]) == 2  # --save still holds the chat


@pytest.mark.timeout(120)
def test_sigterm_ends_a_scene_with_one_line_and_keeps_it(world, tmp_path):
    scenes = tmp_path / "scenes.sqlite"
    proc = _start(["scene", "--store", str(world["canon"]), "--characters", "Wren,Ottilie", "--at", "1-3",
                   "--model", f"scripted:{world['model']}", "--no-cache", "--order", "round-robin",
                   "--scenes", str(scenes)], world["home"])
    seen = _wait_for(proc, "/help lists the commands")
    scene_id = "".join(seen).split("scene ", 1)[1].split(":", 1)[0]
    _, err = _terminate(proc, seen)
    assert err.strip().splitlines()[-1] == (f"terminated: scene {scene_id} is kept; go on with incanon scene "
                                            f"--reopen {scene_id}")
    listed = subprocess.run([sys.executable, "-m", "incanon", "scene", "--list", "--scenes", str(scenes), "--json"],
                            capture_output=True, text=True, timeout=60, env={**os.environ, "INCANON_HOME": str(world["home"])})
    assert [s["id"] for s in json.loads(listed.stdout)] == [scene_id]


def _responses(cache: Path) -> int:
    import sqlite3

    try:
        with sqlite3.connect(f"file:{cache}?mode=ro", uri=True, timeout=5) as db:
            return int(db.execute("SELECT COUNT(*) FROM responses").fetchone()[0])
    except sqlite3.OperationalError:
        return 0


@pytest.mark.timeout(240)
def test_sigterm_stops_a_canon_build_with_the_resume_line(tmp_path):
    cache = tmp_path / "cache.sqlite"
    rules = ROOT / "examples" / "book" / "helper.json"
    proc = _start(["canon", "build", str(ROOT / "examples" / "book" / "saltmere.txt"), "--store",
                   str(tmp_path / "canon"), "--helper", f"slow:{rules}?seconds=0.5", "--cache", str(cache),
                   "--embedder", "none", "--json"], tmp_path / "home")
    deadline = time.monotonic() + 120
    while _responses(cache) < 2:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "no helper answer came"
        time.sleep(0.05)
    _, err = _terminate(proc, [])
    assert err.strip().splitlines()[-1].startswith("terminated: run the same command again to resume")
