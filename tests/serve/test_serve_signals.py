"""SIGTERM or Ctrl-C to ``incanon serve`` with a web chat, a ``/v1`` stream and a scene line in
flight, each waiting on a 120 s model call: the server stops within seconds, in one line, and
keeps every line said before. A second Ctrl-C ends it at once without a traceback. The process
is the subject, so it is a real one.

Before: still running after 30 s (until the model calls ended, saying nothing); a second Ctrl-C
ended it with a ``^^^^`` traceback fragment.
"""

from __future__ import annotations

import json
import signal
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from incanon.canon import CanonStore
from incanon.testing.worlds import mini_world

from serve_process import start_serve, stop

#: The server must be gone this long after the signal (it stops in about 2 s; a busy machine).
STOP_S = 15.0
SLOW_S = 120


@pytest.fixture
def world(tmp_path: Path) -> dict[str, Any]:
    with CanonStore.open(tmp_path / "canon") as store:
        store.import_world(mini_world())
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps({"rules": [{"match": "(?i)slow", "response": "At last.", "seconds": SLOW_S}],
                                 "default": "Evening."}))
    args = ["--store", str(tmp_path / "canon"), "--model", f"slow:{rules}", "--no-cache"]
    return {"args": args, "home": tmp_path / "home"}


def _in_flight(url: str) -> list[threading.Thread]:
    """A web chat line, a /v1 stream and a scene line, each waiting on the slow model."""
    chat = httpx.post(url + "api/chats", json={"character": "Wren Callow", "at": "1-3", "method": "zero-shot"},
                      timeout=60).json()
    said = httpx.post(url + f"api/chats/{chat['id']}/say", json={"line": "Hello there"}, timeout=60)
    assert said.status_code == 200, said.text
    scene = httpx.post(url + "api/scenes", json={"characters": ["Wren Callow", "Ottilie Brand"], "at": "1-3",
                                                 "method": "zero-shot"}, timeout=60)
    assert scene.status_code == 201, scene.text

    def call(method: str, path: str, body: dict[str, Any]) -> None:
        try:
            httpx.request(method, url + path, json=body, timeout=SLOW_S + 30)
        except httpx.HTTPError:
            pass  # the server went away: that is the point

    requests = [("POST", f"api/chats/{chat['id']}/say", {"line": "Be slow about it"}),
                ("POST", "v1/chat/completions", {"model": "lanterns/Wren Callow@1-3/zero-shot", "stream": True,
                                                 "messages": [{"role": "user", "content": "slow, please"}]}),
                ("POST", f"api/scenes/{scene.json()['id']}/say", {"line": "Wren, be slow"})]
    threads = [threading.Thread(target=call, args=r, daemon=True) for r in requests]
    for thread in threads:
        thread.start()
    time.sleep(2.0)  # all three are now waiting on the model
    return threads


def _said_on_stopping(err: str) -> list[str]:
    """stderr without the line saying where it listened and the notes of opening sessions."""
    lines = [line for line in err.splitlines() if line.strip()]
    return [line for line in lines[1:] if not line.startswith("incanon: note:")]


def _kept_turns(home: Path) -> list[int]:
    with sqlite3.connect(home / "chats.sqlite") as db:
        return [r[0] for r in db.execute("SELECT turns FROM chats")]


@pytest.mark.timeout(240)
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_stops_the_server_within_seconds_in_one_line(world, signum):
    proc, url = start_serve(world["args"], world["home"])
    try:
        _in_flight(url)
        sent = time.monotonic()
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=STOP_S + 30)
        took = time.monotonic() - sent
    finally:
        stop(proc)
    said = _said_on_stopping(err)
    assert took < STOP_S, (took, err)
    assert proc.returncode == 128 + signum, err
    assert len(said) == 1, err
    word = "terminated" if signum == signal.SIGTERM else "interrupted"
    assert said[0].startswith(f"{word}: incanon serve stopped") and "kept" in said[0], err
    assert "Traceback" not in err and "^^^" not in err
    assert _kept_turns(world["home"]) == [2]  # the line said before, and its reply


@pytest.mark.timeout(240)
def test_a_second_ctrl_c_ends_it_at_once_without_a_traceback(world):
    proc, url = start_serve(world["args"], world["home"])
    try:
        _in_flight(url)
        proc.send_signal(signal.SIGINT)
        time.sleep(0.3)
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=STOP_S + 30)
        took = time.monotonic() - sent
    finally:
        stop(proc)
    said = _said_on_stopping(err)
    assert took < 5, (took, err)
    assert proc.returncode == 130 and len(said) == 1 and "stopped at once" in said[0], err
    assert "Traceback" not in err and "^^^" not in err
    assert _kept_turns(world["home"]) == [2]
