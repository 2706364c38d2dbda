"""A damaged kept row (a transcript that is not JSON or not a transcript, a scene whose
``present`` is not JSON) is left out of the lists with a note, its GET is a 409 naming the
damage, and every other row is served as before. Before: the chat was listed and its GET failed
without a word; the scenes list was a 500."""

from __future__ import annotations

import logging
import sqlite3
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
                       cache=False, chats=tmp_path / "chats.sqlite", methods=("zero-shot",))


def _client(config: ServeConfig) -> TestClient:
    return TestClient(create_app(config, model=load_chat_model(character_model())), base_url="http://127.0.0.1")


def _damage(path: Path, sql: str, *params: str) -> None:
    with sqlite3.connect(path) as db:
        db.execute(sql, params)


def test_damaged_rows_are_left_out_named_and_the_rest_served(config: ServeConfig, tmp_path: Path, caplog):
    with _client(config) as client:
        ids = []
        for _ in range(4):
            chat = client.post("/api/chats", json={"character": "Wren Callow", "at": "1-3", "method": "zero-shot"})
            assert chat.status_code == 201, chat.text
            ids.append(chat.json()["id"])
            client.post(f"/api/chats/{ids[-1]}/say", json={"line": "Who rang the flood bell?"})
        scenes = [client.post("/api/scenes", json={"characters": ["Wren Callow", "Ottilie Brand"], "at": "1-3",
                                                   "method": "zero-shot"}) for _ in range(2)]
        assert all(s.status_code == 201 for s in scenes), scenes[0].text
    good, not_json, wrong_shape, no_character = ids
    bad_scene, good_scene = (s.json()["id"] for s in scenes)
    chats_db, scenes_db = tmp_path / "chats.sqlite", tmp_path / "scenes.sqlite"
    _damage(chats_db, "UPDATE chats SET transcript = 'not json {' WHERE id = ?", not_json)
    _damage(chats_db, "UPDATE chats SET transcript = '{\"turns\": 5}' WHERE id = ?", wrong_shape)
    _damage(chats_db, "UPDATE chats SET transcript = '{\"work\": \"lanterns\"}' WHERE id = ?", no_character)
    _damage(scenes_db, "UPDATE scenes SET present = '[Wren' WHERE id = ?", bad_scene)

    caplog.set_level(logging.WARNING, logger="incanon.keptrows")
    with _client(config) as client:
        listed = client.get("/api/chats").json()
        assert [c["id"] for c in listed["chats"]] in ([good, no_character], [no_character, good])
        assert sorted(listed["damaged"]) == sorted([not_json, wrong_shape])
        for chat_id, said in ((not_json, "not an incanon-chat transcript"), (wrong_shape, "Field required"),
                              (no_character, "character")):
            response = client.get(f"/api/chats/{chat_id}")
            assert response.status_code == 409, response.text
            assert chat_id in response.json()["error"] and said in response.json()["error"]
        # Found damaged on its GET: left out of the list from then on.
        again = client.get("/api/chats").json()
        assert [c["id"] for c in again["chats"]] == [good] and no_character in again["damaged"]
        assert client.get(f"/api/chats/{good}").status_code == 200

        kept = client.get("/api/scenes")
        assert kept.status_code == 200, kept.text
        assert [s["id"] for s in kept.json()["scenes"]] == [good_scene] and kept.json()["damaged"] == [bad_scene]
        response = client.get(f"/api/scenes/{bad_scene}")
        assert response.status_code == 409 and "present" in response.json()["error"], response.text
        assert client.get(f"/api/scenes/{good_scene}").status_code == 200
        # A damaged row can be forgotten.
        assert client.delete(f"/api/chats/{not_json}").status_code == 204
        assert not_json not in client.get("/api/chats").json()["damaged"]
    noted = [r.getMessage() for r in caplog.records if not_json in r.getMessage()]
    assert len(noted) == 1, noted  # once, however often it was listed or asked for
