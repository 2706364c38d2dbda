"""No request holds the server: the slow families of the fourth hostile round, sent to a real
server while another client asks ``/api/status``.

Before: a card's lorebook key ``/(a+)+$/`` against a 40-character line ran for minutes on the
event loop (nothing else was answered); ``/v1`` content of 60,000 newlines took 45 s and 30,000
``<chat_history>`` markers under a ``### Task:`` heading 158 s, each a regex of quadratic time on
the request. The bounds here are generous (a busy 2-core machine): seconds where it was minutes,
and the other client is checked by order (answered while the hostile request still ran).

The server is a process of its own: a match in ``re`` holds the interpreter lock, so a server
in the test's process would stop the measuring client too and hide the stall.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from incanon.canon import CanonStore
from incanon.cards.importer import import_card
from incanon.cards.model import parse_card
from incanon.testing.worlds import mini_world

from serve_helpers import CHARACTER_RULES, DEFAULT_REPLY
from serve_process import start_serve, stop

#: A hostile request may take this long on a busy machine (they took 45 s to hours before).
SLOWEST_S = 10.0
#: ``/api/status`` must come back within this while a hostile request runs (it waited as long
#: as the request did before; the rule is 100 ms of loop, this leaves room for a busy machine).
STATUS_S = 2.0

CARD = {"spec": "chara_card_v2", "spec_version": "2.0", "data": {
    "name": "Maren", "description": "Keeper of the rock light.", "personality": "Dry.", "scenario": "",
    "first_mes": "You're late.", "mes_example": "",
    "character_book": {"entries": [
        {"keys": ["/(a+)+$/"], "content": "Nested plus.", "enabled": True, "insertion_order": 0},
        {"keys": ["(x+x+)+y"], "content": "Doubled x.", "enabled": True, "insertion_order": 1, "use_regex": True},
        {"keys": ["/(a|aa)+$/"], "content": "Alternation.", "enabled": True, "insertion_order": 2},
        {"keys": ["lamp"], "content": "The lamp is older than Maren.", "enabled": True, "insertion_order": 3},
    ]}}}


def _v1(model: str, content: str) -> dict[str, Any]:
    return {"model": model, "messages": [{"role": "user", "content": content}]}


LANTERNS = "lanterns/Wren Callow@1-3/zero-shot"
ROCK = "rock/Maren@1-1/in-canon"
TASK = '### Task:\nSuggest a title.\n### Output:\n{"title": "..."}\n'
#: The families of the round: name, body of ``POST /v1/chat/completions``.
HOSTILE: list[tuple[str, dict[str, Any]]] = [
    ("lorebook (a+)+$", _v1(ROCK, "a" * 40 + "!")),
    ("lorebook (x+x+)+y", _v1(ROCK, "x" * 40)),
    ("lorebook (a|aa)+$", _v1(ROCK, "a" * 39 + "!")),
    ("60,000 newlines", _v1(LANTERNS, "\n" * 60_000)),
    ("120,000 newlines", _v1(LANTERNS, "\n" * 120_000)),
    ("newlines under a task heading", _v1(LANTERNS, TASK + "\n" * 100_000)),
    ("30,000 chat_history markers", _v1(LANTERNS, TASK + "<chat_history>" * 30_000)),
    ("30,000 CHAT_HISTORY markers, one closing", _v1(LANTERNS, TASK + "<CHAT_HISTORY>" * 30_000 + "</chat_history>")),
    ("60,000 blank Task headings", _v1(LANTERNS, "### \n" * 60_000)),
    ("30,000 speaker labels", {"model": LANTERNS, "messages": [
        {"role": "user", "content": "Wren: " * 30_000}, {"role": "assistant", "content": ":" * 60_000}]}),
    ("1,000 messages of 500 newlines", {"model": LANTERNS, "messages": [
        {"role": "user" if i % 2 == 0 else "assistant", "content": "\n" * 500 + "Ottilie:"} for i in range(1_000)]}),
]


@dataclass
class Timed:
    """One hostile request and what the other client saw meanwhile."""

    name: str
    status: int
    seconds: float
    status_answers: int
    """``/api/status`` answers that came back while the hostile request still ran."""
    slowest_status: float


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("event-loop")
    with CanonStore.open(root / "canon") as store:
        store.import_world(mini_world())
        card, _ = parse_card(CARD, "maren.json")
        import_card(store, card, work="rock", at="1-1")
    rules = root / "character.json"
    rules.write_text(json.dumps({"rules": [{"match": m, "response": r} for m, r in CHARACTER_RULES],
                                 "default": DEFAULT_REPLY}))
    proc, url = start_serve(["--store", str(root / "canon"),
                             "--model", f"scripted:{rules}", "--no-cache", "--no-chats"], root / "home")
    try:
        yield url
    finally:
        stop(proc)


def timed(url: str, name: str, body: dict[str, Any]) -> Timed:
    """Send ``body`` and ask ``/api/status`` from another client until it is answered."""
    result: dict[str, Any] = {}

    def hostile() -> None:
        started = time.monotonic()
        with httpx.Client(timeout=600) as client:
            result["status"] = client.post(url + "v1/chat/completions", json=body).status_code
        result["seconds"] = time.monotonic() - started

    thread = threading.Thread(target=hostile)
    thread.start()
    answers, slowest = 0, 0.0
    with httpx.Client(timeout=600) as other:
        while thread.is_alive():
            asked = time.monotonic()
            assert other.get(url + "api/status").status_code == 200
            slowest = max(slowest, time.monotonic() - asked)
            if thread.is_alive():
                answers += 1
            time.sleep(0.02)
    thread.join()
    return Timed(name, result["status"], result["seconds"], answers, slowest)


@pytest.mark.timeout(600)
def test_no_hostile_request_holds_the_server(server):
    # Warm up: the sessions open once (a character's first request builds its persona).
    for model in (LANTERNS, ROCK):
        assert httpx.post(server + "v1/chat/completions", json=_v1(model, "hello"), timeout=120).status_code == 200
    results = [timed(server, name, body) for name, body in HOSTILE]
    table = "\n".join(f"{r.name}: {r.status} in {r.seconds:.2f}s, status answered {r.status_answers} times, "
                      f"slowest {r.slowest_status:.2f}s" for r in results)
    assert all(r.status < 500 for r in results), table
    slowest = max(results, key=lambda r: r.seconds)
    assert slowest.seconds < SLOWEST_S, table
    assert max(r.slowest_status for r in results) < STATUS_S, table
    if slowest.seconds > 0.5:  # long enough to ask: the other client was answered meanwhile
        assert slowest.status_answers >= 1, table
