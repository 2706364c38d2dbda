"""One ``incanon serve`` per chat store: a second server on the same INCANON_HOME is refused in
one line naming the first (its lines would otherwise be lost when both continue a kept chat)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from incanon.canon import CanonStore
from incanon.errors import ConfigError
from incanon.serve.home_lock import ServeLock, chat_folder
from incanon.testing.worlds import mini_world

from serve_process import start_serve, stop


def test_a_second_holder_is_refused_naming_the_first(tmp_path: Path):
    first, second = ServeLock(tmp_path), ServeLock(tmp_path)
    first.acquire("http://127.0.0.1:1234/")
    with pytest.raises(ConfigError, match=rf"pid {os.getpid()}, http://127.0.0.1:1234/"):
        second.acquire("http://127.0.0.1:5678/")
    first.release()
    second.acquire("http://127.0.0.1:5678/")  # free again once the first lets go
    second.release()


def test_the_folder_locked_is_the_chat_stores(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("INCANON_HOME", str(tmp_path / "home"))
    assert chat_folder(True) == (tmp_path / "home").resolve() or chat_folder(True) == tmp_path / "home"
    assert chat_folder(tmp_path / "elsewhere" / "chats.sqlite") == (tmp_path / "elsewhere").resolve()
    assert chat_folder(False) is None


@pytest.mark.timeout(180)
def test_a_second_server_on_one_home_says_which_server_holds_it(tmp_path: Path):
    with CanonStore.open(tmp_path / "canon") as store:
        store.import_world(mini_world())
    args = ["--store", str(tmp_path / "canon"), "--model", "scripted:none.json"]
    home = tmp_path / "home"
    first, url = start_serve(args, home)
    try:
        env = {**os.environ, "INCANON_HOME": str(home)}
        second = subprocess.run([sys.executable, "-m", "incanon", "serve", "--port", "0", *args], env=env,
                                capture_output=True, text=True, timeout=120)
        assert second.returncode == 2, second.stderr
        (line,) = second.stderr.strip().splitlines()
        assert f"pid {first.pid}, {url}" in line and "--no-chats" in line, line
        # Chats kept elsewhere: no shared store, both run.
        other, _ = start_serve([*args, "--chats", str(tmp_path / "other" / "chats.sqlite")], home)
        stop(other)
    finally:
        stop(first)
    third, _ = start_serve(args, home)  # the first is gone, and so is its lock
    stop(third)
    assert json.loads((home / "incanon-serve.lock").read_text())["pid"] == third.pid
