"""The web app's chats survive a server restart: kept in SQLite, listed, reopened where they were
(position, method, every turn), forgotten when closed, and never listed past the reader."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from incanon.canon import CanonStore
from incanon.models import load_chat_model
from incanon.serve import ServeConfig, create_app
from incanon.testing.worlds import mini_world

from serve_helpers import character_model


@pytest.fixture()
def config(tmp_path: Path) -> ServeConfig:
    with CanonStore.open(tmp_path / "canon") as store:
        store.import_world(mini_world())
    return ServeConfig(canon=tmp_path / "canon", runs=tmp_path / "runs.sqlite", model="scripted-character",
                       cache=False, chats=tmp_path / "chats.sqlite")


@contextmanager
def server(config: ServeConfig) -> Iterator[TestClient]:
    """One run of the server: leaving the block shuts it down, as a restart would."""
    app = create_app(config, model=load_chat_model(character_model()))
    with TestClient(app, base_url="http://127.0.0.1") as client:
        yield client


def _start(client: TestClient, at: str = "1-3") -> dict:
    response = client.post("/api/chats", json={"character": "Wren Callow", "at": at, "method": "zero-shot"})
    assert response.status_code == 201, response.text
    return response.json()


def _say(client: TestClient, chat_id: str, line: str) -> dict:
    response = client.post(f"/api/chats/{chat_id}/say", json={"line": line})
    assert response.status_code == 200, response.text
    return response.json()


def test_a_chat_survives_a_restart_where_it_was(config: ServeConfig) -> None:
    with server(config) as client:
        chat = _start(client)
        _say(client, chat["id"], "Who rang the flood bell?")
        _say(client, chat["id"], "/method zero-shot-cot")
        _say(client, chat["id"], "/at 1-2")
    with server(config) as client:
        (kept,) = client.get("/api/chats").json()["chats"]
        assert (kept["id"], kept["character"], kept["at"], kept["method"], kept["turns"]) == (
            chat["id"], "Wren Callow", "1-2", "zero-shot-cot", 2)
        again = client.get(f"/api/chats/{chat['id']}").json()
        assert again["at"] == "1-2" and again["method"] == "zero-shot-cot"
        assert [t["speaker"] for t in again["turns"]] == ["user", "Wren Callow"]
        more = _say(client, chat["id"], "And you?")["chat"]
        assert len(more["turns"]) == 4
        download = client.get(f"/api/chats/{chat['id']}/transcript").json()
        assert [p["at"] for p in download["positions"]] == ["1-3", "1-2"] and len(download["turns"]) == 4


def test_a_chat_closed_as_least_recently_used_reopens_with_its_turns(config: ServeConfig) -> None:
    config = replace(config, max_chats=1)
    with server(config) as client:
        first = _start(client)
        _say(client, first["id"], "Who rang the flood bell?")
        _start(client)  # closes the first (one open chat at most)
        again = _say(client, first["id"], "And you?")["chat"]
        assert [t["text"] for t in again["turns"]][:1] == ["Who rang the flood bell?"] and len(again["turns"]) == 4


def test_closing_a_chat_forgets_it(config: ServeConfig) -> None:
    with server(config) as client:
        chat = _start(client)
        assert client.delete(f"/api/chats/{chat['id']}").status_code == 204
        assert client.get("/api/chats").json()["chats"] == []
    with server(config) as client:
        assert client.get(f"/api/chats/{chat['id']}").status_code == 404


def test_chats_past_the_readers_position_are_not_listed(config: ServeConfig) -> None:
    with server(config) as client:
        early, late = _start(client, "1-1"), _start(client, "1-3")
        listed = client.get("/api/chats", params={"reader_at": "1-2"}).json()
        assert [c["id"] for c in listed["chats"]] == [early["id"]] and listed["hidden"] == 1
        assert {c["id"] for c in client.get("/api/chats").json()["chats"]} == {early["id"], late["id"]}


def test_without_a_chat_store_chats_live_in_memory(config: ServeConfig, tmp_path: Path) -> None:
    config = replace(config, chats=False)
    with server(config) as client:
        chat = _start(client)
        assert client.get("/api/chats").json()["chats"] == []
        assert client.get(f"/api/chats/{chat['id']}").status_code == 200
    assert not (tmp_path / "chats.sqlite").exists()


def test_a_turn_the_full_chat_store_cannot_keep_is_taken_back_and_said_so(config: ServeConfig, monkeypatch) -> None:
    """A full disk answered with a 400 meant for benchmark runs while the chat kept the turn, so
    a resend put the line in twice."""
    import sqlite3

    from incanon.serve.chat_store import ChatStore

    with server(config) as client:
        chat = _start(client)
        _say(client, chat["id"], "Who rang the flood bell?")
        real_save = ChatStore.save

        def full(self, *args, **kwargs):
            raise sqlite3.OperationalError("database or disk is full")

        monkeypatch.setattr(ChatStore, "save", full)
        response = client.post(f"/api/chats/{chat['id']}/say", json={"line": "And the lamps?"})
        assert response.status_code == 400
        message = response.json()["error"]
        assert message.startswith("this turn was not kept") and "resumes" not in message
        assert len(client.get(f"/api/chats/{chat['id']}").json()["turns"]) == 2  # taken back
        monkeypatch.setattr(ChatStore, "save", real_save)
        again = _say(client, chat["id"], "And the lamps?")  # the resend, once space is free
        assert [t["text"] for t in again["chat"]["turns"] if t["speaker"] == "user"] == [
            "Who rang the flood bell?", "And the lamps?"]
    with server(config) as client:
        assert len(client.get(f"/api/chats/{chat['id']}").json()["turns"]) == 4
