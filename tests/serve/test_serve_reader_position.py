"""The reader's position: what a person is shown (ids, labels, the slider, errors) names nothing
after how far they have read, on ``/v1`` (``X-Incanon-Reader-At``), in the web app's API
(``?reader_at=``) and under a server's ``--reader-at``; without one, points are named by
position. Each leak check is also run on the ``--spoilers`` output, where it must find the later
names, labels and titles: a check that cannot fail proves nothing."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from incanon.canon import CanonStore
from incanon.canon.position import Position
from incanon.models import load_chat_model
from incanon.sample import sample_world
from incanon.serve import ServeConfig, create_app

from serve_helpers import character_model

HEADER = "X-Incanon-Reader-At"
HI = [{"role": "user", "content": "Hello"}]


@lru_cache(maxsize=None)
def _world():
    return sample_world()


@lru_cache(maxsize=None)
def later_strings(at: str) -> tuple[str, ...]:
    """What tells of the sample world after ``at``, read from the world itself (not from the
    server's code): later time-point labels, characters first seen later and their names, names
    taken into use later, titles of later scenes and books."""
    world, reader = _world(), Position.parse(at)
    after = lambda p: p is not None and Position.parse(p) > reader  # noqa: E731
    early_labels = {tp.label for c in world.characters for tp in c.time_points if not after(tp.position)}
    found = [tp.label for c in world.characters for tp in c.time_points if after(tp.position)]
    found = [label for label in found if label not in early_labels]  # "end of book 1" is said by many
    for c in world.characters:
        if after(c.first_position):
            found += [c.name, *c.aliases]
        found += [alias for alias, since in c.alias_from.items() if after(since)]
    found += [s.title for s in world.scenes if after(s.position) and s.title]
    found += [title for book, title in world.work.books.items() if int(book) > (reader.book or 0)]
    return tuple(sorted(set(found)))


def told(text: str, at: str) -> list[str]:
    """The later strings (of ``later_strings(at)``) in ``text``, as whole words."""
    return [s for s in later_strings(at) if re.search(rf"(?<!\w){re.escape(s)}(?!\w)", text, re.IGNORECASE)]


@pytest.fixture(scope="module")
def canon(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("reader") / "canon"
    with CanonStore.open(root) as store:
        store.import_world(sample_world())
    return root


def _client(canon: Path, **settings) -> TestClient:
    config = ServeConfig(canon=canon, runs=canon.parent / "runs.sqlite", model="scripted-character", cache=False,
                         **settings)
    return TestClient(create_app(config, model=load_chat_model(character_model())), base_url="http://127.0.0.1")


@pytest.fixture(scope="module")
def app(canon: Path) -> Iterator[TestClient]:
    with _client(canon) as client:
        yield client


@pytest.fixture(scope="module")
def spoiled(canon: Path) -> Iterator[TestClient]:
    with _client(canon, spoilers=True) as client:
        yield client


def models(client: TestClient, at: str | None = None) -> list[dict]:
    response = client.get("/v1/models", headers={HEADER: at} if at else {})
    assert response.status_code == 200, response.text
    return response.json()["data"]


# -- /v1/models ------------------------------------------------------------------------------------

def test_without_a_reader_position_points_are_named_by_position(app, spoiled):
    listed = models(app)
    world = _world()
    ids = {m["id"] for m in listed}
    expected = {f"lanterns/{c.name}@{tp.position}" for c in world.characters for tp in c.time_points}
    assert ids == expected  # every character, every point, each by its position
    labels = sorted({tp.label for c in world.characters for tp in c.time_points})
    shown = json.dumps(listed)
    assert [label for label in labels if f'"{label}"' in shown or f"@{label}" in shown] == []
    assert all("description" not in m["incanon"] for m in listed)
    renamed = [alias for c in world.characters for alias, since in c.alias_from.items() if since]
    assert renamed and [a for a in renamed if a in shown] == []  # a name taken into use later tells
    # The same checks find the labels and names where --spoilers shows them.
    spoiled_listing = json.dumps(models(spoiled))
    assert "lanterns/Wren Callow@end of book 1" in spoiled_listing
    assert [label for label in labels if f"@{label}" in spoiled_listing]


def test_ids_by_label_still_resolve(app):
    found = app.get("/v1/models/lanterns/Wren Callow@end of book 1")
    assert found.status_code == 200 and found.json()["id"] == "lanterns/Wren Callow@1-3"
    reply = app.post("/v1/chat/completions", json={"model": "lanterns/Wren Callow@end of book 1/zero-shot",
                                                      "messages": HI})
    assert reply.status_code == 200 and reply.json()["incanon"]["at"] == "1-3"


@pytest.mark.parametrize("at", ["1-1-2", "1-3", "2-4"])
def test_a_reader_position_lists_only_what_was_read(app, spoiled, at):
    reader = Position.parse(at)
    listed = models(app, at)
    world = _world()
    first_by_then = {c.name for c in world.characters if Position.parse(c.first_position) <= reader}
    assert {m["incanon"]["character"] for m in listed} <= first_by_then
    assert all(Position.parse(m["incanon"]["position"]) <= reader for m in listed)
    assert told(json.dumps(listed), at) == []
    # Labels are back (the reader has read up to there), and the same check fails on --spoilers.
    if at == "1-3":
        assert "lanterns/Wren Callow@end of book 1" in {m["id"] for m in listed}
    assert told(json.dumps(models(spoiled)), at)


def test_a_model_past_the_reader_is_refused_naming_nothing_later(app):
    at = "1-3"

    def one(model_id: str) -> dict:
        response = app.get(f"/v1/models/{model_id}", headers={HEADER: at})
        assert response.status_code == 404
        return response.json()

    # Unknown and not yet read get the same answer: a difference would tell what is later.
    nobody = one("lanterns/Nobody@1-3")
    assert one("lanterns/Wren Callow@end of book 2") == nobody == one("lanterns/Amos Quill@the levy notice")
    assert one("lanterns/Stormwren@1-3") == nobody and one("lanterns/Wren Callow@2-4") == nobody

    def chat(model: str) -> tuple[int, str]:
        response = app.post("/v1/chat/completions", headers={HEADER: at}, json={"model": model, "messages": HI})
        return response.status_code, response.json()["error"]["message"]

    later_character, nobody_chat = chat("Amos Quill@1-3"), chat("Nobody Atall@1-3")
    assert later_character == nobody_chat and later_character[0] == 404
    assert chat("Stormwren@1-3") == nobody_chat  # a name taken into use later is nobody yet
    later_label, unknown_label = chat("Wren@the night Ottilie died"), chat("Wren@the day after never")
    assert later_label == unknown_label and later_label[0] == 404
    past = chat("Wren@3-4")
    assert past[0] == 400 and "past the reader's position (1-3)" in past[1]
    for _, message in (later_character, later_label, past):
        assert told(message, at) == [] and not re.search(r"\b[23]-\d", message), message
    ok = app.post("/v1/chat/completions", headers={HEADER: at},
                  json={"model": "Wren@end of book 1/zero-shot", "messages": HI})
    assert ok.status_code == 200 and ok.json()["model"] == "Wren@end of book 1/zero-shot"
    assert ok.json()["incanon"]["at"] == "1-3"


def test_the_server_caps_the_reader_unless_spoilers(canon):
    with _client(canon, reader_at="1-3") as capped:
        assert {m["id"] for m in models(capped)} == {m["id"] for m in models(capped, "1-3")}
        assert len(models(capped, "1-1")) < len(models(capped))
        refused = capped.get("/v1/models", headers={HEADER: "2-4"})
        error = refused.json()["error"]
        assert refused.status_code == 400 and error["param"] == HEADER and "(1-3)" in error["message"]
        chat = capped.post("/v1/chat/completions", json={"model": "Wren@end of book 2", "messages": HI})
        assert chat.status_code == 404 and told(chat.text, "1-3") == []
        timeline = capped.get("/api/works/lanterns/timeline").json()
        assert timeline["reader"]["at"] == "1-3" and timeline["reader"]["choices"][-1] == "1-3"
        assert capped.get("/api/works/lanterns/timeline", params={"reader_at": "2-1"}).status_code == 400
    with _client(canon, reader_at="1-3", spoilers=True) as lifted:
        assert told(json.dumps(models(lifted)), "1-3") == []  # the cap is still the default
        assert {m["id"] for m in models(lifted, "2-4")} >= {"lanterns/Wren Callow@end of book 2"}


@pytest.mark.parametrize("value", ["end of book 1", "", "1-3" * 40, "<b>2</b>"])
def test_a_bad_reader_position_is_named_not_echoed(app, value):
    response = app.get("/v1/models", headers={HEADER: value})
    error = response.json()["error"]
    assert response.status_code == 400 and error["param"] == HEADER and "story position" in error["message"]
    assert value not in error["message"] or not value
    web = app.get("/api/works/lanterns/timeline", params={"reader_at": value})
    assert web.status_code in (400, 422) and "reader_at" in web.json()["error"]


def test_the_cli_refuses_a_reader_position_it_cannot_place(canon, capsys):
    from incanon.testing.cli import run_main

    for value, expected in (("end of book 1", "--reader-at: expected a story position"),
                            ("2024-03-07", "--reader-at 2024-03-07: no work")):
        assert run_main(["serve", "--store", str(canon), "--reader-at", value, "--port", "0"]) == 2
        assert expected in capsys.readouterr().err


# -- the web app's timeline ---------------------------------------------------------------------------

@pytest.mark.parametrize("at", ["1-1", "1-3", "2-3-1", "2-4"])
def test_the_timeline_sends_nothing_after_the_reader(app, spoiled, at):
    line = app.get("/api/works/lanterns/timeline", params={"reader_at": at}).json()
    reader = Position.parse(at)
    assert line["stops"] and all(Position.parse(s["at"]) <= reader for s in line["stops"])
    assert all(Position.parse(tp["at"]) <= reader for c in line["characters"] for tp in c["time_points"])
    assert set(line["books"]) <= {str(b) for b in range(1, (reader.book or 0) + 1)}
    shown = dict(line)
    choices = shown.pop("reader")["choices"]  # chapters by number, for "I have read up to"
    assert choices and all(re.fullmatch(r"\d+-\d+", c) for c in choices)
    assert told(json.dumps(shown), at) == []
    # What a reader there has read is there: titles and labels up to the position.
    assert any(s["scenes"] and s["scenes"][0]["title"] for s in line["stops"])
    # The same check on the whole timeline (--spoilers) finds the later titles and labels.
    assert told(json.dumps(spoiled.get("/api/works/lanterns/timeline").json()), at)


def test_the_timeline_without_a_reader_names_positions_only(app):
    line = app.get("/api/works/lanterns/timeline").json()
    world = _world()
    assert len(line["stops"]) > 30 and line["books"] == {} and line["reader"]["at"] is None
    assert all(s["label"] == s["at"] and not s["scenes"] and not s["participants"] for s in line["stops"])
    assert all(m["label"] == s["at"] for s in line["stops"] for m in s["marks"])
    text = json.dumps(line)
    titles = [s.title for s in world.scenes if s.title] + [tp.label for c in world.characters for tp in c.time_points]
    assert [t for t in titles if f'"{t}"' in text] == []


def test_a_label_telling_more_than_the_reader_read_is_shown_as_its_position(tmp_path):
    world = _world()
    wren = next(c for c in world.characters if c.name == "Wren Callow")
    first = min(wren.time_points, key=lambda tp: Position.parse(tp.position).key)
    first.label = "before she is called Stormwren"  # a name only book 2 brings
    with CanonStore.open(tmp_path / "canon") as store:
        store.import_world(world)
    with _client(tmp_path / "canon") as client:
        def labels(at: str) -> list[str]:
            line = client.get("/api/works/lanterns/timeline", params={"reader_at": at}).json()
            return [tp["label"] for c in line["characters"] if c["name"] == "Wren Callow" for tp in c["time_points"]]

        assert labels("1-3") == ["1-3"]
        assert labels("2-4")[0] == "before she is called Stormwren"  # read by then: shown


# -- the web app's chats ----------------------------------------------------------------------------

def test_web_chats_stay_at_or_before_the_reader(app):
    def start(at: str, reader: str = "1-3"):
        return app.post("/api/chats", params={"reader_at": reader},
                        json={"character": "Wren", "at": at, "method": "zero-shot"})

    assert start("end of book 2").status_code == 404 and told(start("end of book 2").text, "1-3") == []
    assert start("2-4").status_code == 400
    assert app.post("/api/chats", params={"reader_at": "1-3"},
                    json={"character": "Amos Quill", "at": "1-3"}).status_code == 404
    chat = start("end of book 1").json()
    assert (chat["character"], chat["at"], chat["time_label"]) == ("Wren Callow", "1-3", "end of book 1")

    def say(line: str, reader: str = "1-3") -> dict:
        response = app.post(f"/api/chats/{chat['id']}/say", params={"reader_at": reader}, json={"line": line})
        assert response.status_code == 200
        return response.json()

    moved = say("/at end of book 2")
    assert moved["outcome"]["kind"] == "error" and moved["chat"]["at"] == "1-3"
    assert told(moved["outcome"]["message"], "1-3") == []
    assert say("/at 2-4")["outcome"]["kind"] == "error"
    # The reader steps back: the chat answers nothing until it moves back too.
    refused = say("Hello", reader="1-1")
    assert refused["outcome"]["kind"] == "error" and "past how far you have read (1-1)" in refused["outcome"]["message"]
    again = app.post(f"/api/chats/{chat['id']}/regenerate", params={"reader_at": "1-1"})
    assert again.status_code == 400
    assert say("/at 1-1-1", reader="1-1")["chat"]["at"] == "1-1-1"
    assert say("Hello", reader="1-1")["outcome"]["kind"] == "reply"


def test_the_works_list_names_the_characters_read_so_far(app):
    (work,) = app.get("/api/works", params={"reader_at": "1-1"}).json()
    world = _world()
    assert set(work["characters"]) == {c.name for c in world.characters
                                       if Position.parse(c.first_position) <= Position.parse("1-1")}
    (every,) = app.get("/api/works").json()
    assert len(every["characters"]) == len(world.characters)


# -- labels fail closed --------------------------------------------------------------------------

LATER_LABEL = "before the flood bell rings"
"""A user-written label made only of words of later events (the bell rung in 2-3-1, promised at 2-2-1),
at Wren's first point (1-3); each word is known by then, so the word test alone lets it through."""


@pytest.fixture(scope="module")
def labelled(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    root = tmp_path_factory.mktemp("labelled") / "canon"
    world = sample_world()
    wren = next(c for c in world.characters if c.name == "Wren Callow")
    wren.time_points[0].label = LATER_LABEL
    with CanonStore.open(root) as store:
        store.import_world(world)
    with _client(root) as client:
        yield client


@pytest.mark.parametrize("at", ["1-3", "2-2"])
def test_a_label_naming_a_later_event_is_shown_as_its_position(labelled, at):
    listed = json.dumps(models(labelled, at))
    timeline = labelled.get("/api/works/lanterns/timeline", headers={HEADER: at})
    assert timeline.status_code == 200, timeline.text
    assert LATER_LABEL not in listed and LATER_LABEL not in timeline.text
    assert any(m["id"] == "lanterns/Wren Callow@1-3" for m in models(labelled, at))


def test_the_label_names_the_point_by_its_position_for_every_reader_and_still_resolves(labelled):
    # The character at 1-3 is listed, and prompted, without it even for a reader who has read the
    # event: the label would tell the character its future. Typed, it still names the point.
    assert LATER_LABEL not in json.dumps(models(labelled, "2-3-1"))
    found = labelled.get(f"/v1/models/lanterns/Wren Callow@{LATER_LABEL}", headers={HEADER: "2-3-1"})
    assert found.status_code == 200 and found.json()["id"] == "lanterns/Wren Callow@1-3"
