"""Two builds into one store: the second stops at once, says who holds the store, and removes
nothing; the first finishes with one graph, not two."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from incanon.canonbuild.lock import LOCK_NAME, BuildLockedError, build_lock
from incanon.testing.cli import run_main

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "examples" / "book" / "saltmere.txt"
RULES = ROOT / "examples" / "book" / "helper.json"
HELPER = f"scripted:{RULES}"


def _build(store: Path, cache: Path, *extra: str) -> list[str]:
    return ["canon", "build", str(BOOK), "--store", str(store), "--helper", HELPER, "--cache", str(cache),
            "--embedder", "none", *extra]


def test_a_second_build_of_a_locked_store_stops_at_once_and_removes_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store, cache = tmp_path / "canon", tmp_path / "cache.sqlite"
    assert run_main(_build(store, cache)) == 0
    capsys.readouterr()
    files = lambda: {p.name: (p.stat().st_size, p.stat().st_mtime_ns)  # noqa: E731
                     for p in [*store.iterdir(), cache] if p.name != LOCK_NAME}
    before = files()
    with build_lock(store):  # another build holds the store (flock: per open file, so this process counts)
        code = run_main(_build(store, cache))
    err = capsys.readouterr().err
    assert code == BuildLockedError.exit_code == 75
    assert f"{store}: another canon build (pid {os.getpid()}) is writing this store" in err
    assert len(err.strip().splitlines()[-1]) < 300 and "Traceback" not in err
    assert files() == before
    assert run_main(_build(store, cache)) == 0  # released: the next build runs


def test_a_refused_build_creates_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store, cache = tmp_path / "canon", tmp_path / "new-cache.sqlite"
    with build_lock(store):
        assert run_main(_build(store, cache)) == 75
        assert not cache.exists()  # refused before the helper was even loaded
        assert sorted(p.name for p in store.iterdir()) == [LOCK_NAME]  # the holder's, still there
    capsys.readouterr()


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_two_builds_at_once_in_a_fresh_home_give_one_graph_and_keep_the_first_builds_cache(tmp_path: Path) -> None:
    """The reported race: both builds started on a machine with no INCANON_HOME yet. Before the
    lock, both wrote the graph (8 entities for 4), or the second failed and deleted the home."""
    home = tmp_path / "home"
    env = {**os.environ, "INCANON_HOME": str(home)}
    slow = f"slow:{RULES}?seconds=0.3"  # long enough for the second build to start meanwhile
    argv = [sys.executable, "-m", "incanon"]
    cmd = ["canon", "build", str(BOOK), "--helper", slow, "--embedder", "none", "--json"]
    first = subprocess.Popen([*argv, *cmd], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             preexec_fn=_default_sigint)
    lock = home / "canon" / LOCK_NAME
    deadline = time.monotonic() + 60
    while not (lock.exists() and lock.read_text().strip()):
        assert first.poll() is None, first.communicate()
        assert time.monotonic() < deadline, "the first build never took the lock"
        time.sleep(0.02)
    second = subprocess.run([*argv, *cmd], env=env, capture_output=True, text=True, timeout=120)
    out, err = first.communicate(timeout=180)
    assert first.returncode == 0, err
    assert second.returncode == 75, second.stderr
    assert f"another canon build (pid {first.pid})" in second.stderr
    assert json.loads(out)["graph"]["nodes"] == 4
    with sqlite3.connect(home / "canon" / "canon.sqlite") as db:
        assert db.execute("SELECT COUNT(*) FROM graph_nodes").fetchone()[0] == 4
    with sqlite3.connect(home / "cache.sqlite") as db:
        assert db.execute("SELECT COUNT(*) FROM responses").fetchone()[0] > 20
