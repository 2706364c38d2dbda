"""The leak audit of ``/v1`` group chats: what a group request sends the answering character's
model (every call) and the client (the reply and its ``incanon`` evidence), read against that
character's horizon (word check) and by canaries planted in a copy of the world, is clean; a
planted later-position line (one the client never sent, from a scene after the position) is
caught by both checks, so they are seen to fail."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from incanon.audit.canaries import Visibility, found_in, plant
from incanon.audit.surfaces import story_text
from incanon.canon import CanonStore, World
from incanon.canon.persona import horizon_at
from incanon.canon.position import Position
from incanon.models import ScriptedModel
from incanon.scenes.record import SceneLine
from incanon.serve import ServeConfig, create_app
from incanon.serve import scene_group
from incanon.serve.requests import leading_label

from tests.canon.secret_world import secret_world

ORD, AT = "Matthias Ord", "1-2-1"
#: A group evening at Ord's: Vane and Tull speak (by name field and by label), the user narrates.
GROUP = [
    {"role": "system", "content": "[Start a new group chat. Group members: Matthias Ord, Aurel Vane, Bram Tull]"},
    {"role": "user", "content": "An evening at the lawyer's; rain on the window."},
    {"role": "assistant", "name": "Aurel_Vane", "content": "Good evening, Ord. I came for a word about my will."},
    {"role": "assistant", "content": "Bram Tull: I will sit by the fire, cousin."},
    {"role": "assistant", "content": "Matthias Ord: Sit, both of you."},
    {"role": "user", "content": "Tell us what you know of the people in this room, and of the will."},
]


def _client_text(messages: list[dict]) -> list[str]:
    """What the client sent: each message's words, with and without a speaker label."""
    said = [m["content"] for m in messages]
    said += [found[1] for text in said if (found := leading_label(text)) is not None]
    return sorted(set(said), key=len, reverse=True)


def _without(text: str, said: list[str]) -> str:
    for piece in said:  # longest first: a line inside another stays whole
        text = text.replace(piece, " ")
    return text


@contextmanager
def _served(world: World, folder: Path) -> Iterator[tuple[TestClient, ScriptedModel]]:
    with CanonStore.open(folder / "canon") as store:
        store.import_world(world)
    model = ScriptedModel(default="I would rather not say.", name="scripted-group")
    config = ServeConfig(canon=folder / "canon", runs=folder / "runs.sqlite", model="scripted-group", cache=False,
                         chats=False)
    with TestClient(create_app(config, model=model), base_url="http://127.0.0.1") as client:
        yield client, model


def _ask(client: TestClient, model: ScriptedModel, messages: list[dict]) -> tuple[str, dict]:
    """Every message of every call the request made (one text), and the response."""
    before = len(model.calls)
    response = client.post("/v1/chat/completions", json={"model": f"vane/{ORD}@{AT}", "messages": messages})
    assert response.status_code == 200, response.text
    sent = "\n\n".join(m.content for call in model.calls[before:] for m in call.messages)
    return sent, response.json()


def _word_check(folder: Path, sent: str, reply: dict) -> int:
    """Leaks of the prompts and of the reply's evidence against Ord's horizon (client text out)."""
    said = _client_text(GROUP)
    evidence = reply["incanon"]["evidence"]
    with CanonStore.open(folder / "canon") as store:
        horizon = horizon_at(store, "vane", store.character("vane", ORD), Position.parse(AT))
        chunks = [c["id"] for c in evidence["chunks"]]
        prompt = horizon.leaks(_without(sent, said), chunk_ids=chunks)
        shown = horizon.leaks(_without(story_text(reply["incanon"]), said), chunk_ids=chunks)
        return prompt.total + shown.total


def _canary_check(tmp_path: Path) -> tuple[int, list[str]]:
    """(markers planted, where each marker hidden from Ord at the position was found)."""
    planted, canaries = plant(secret_world())
    with _served(planted, tmp_path / "planted") as (client, model):
        sent, reply = _ask(client, model, GROUP)
    with CanonStore.open(tmp_path / "planted" / "canon") as store:
        seen = Visibility(store, "vane", ORD, Position.parse(AT), canaries)
        text = _without(f"{sent}\n{json.dumps(reply, ensure_ascii=False)}", _client_text(GROUP))
        return len(canaries), [canaries[i].where for i in found_in(text) if seen.hidden(i)]


@pytest.fixture
def plant_a_later_line(monkeypatch: pytest.MonkeyPatch) -> Callable[[], None]:
    """A broken group reader: it adds a line the client never sent, the summary of the scene
    after Ord's position where Vane, alone, becomes Crane (1-3-1), as if Vane had said it."""

    def install() -> None:
        real = scene_group.group_history

        def broken(store, work, own, at, lines):  # noqa: ANN001, ANN202 - the bug under test
            history = real(store, work, own, at, lines)
            later = store.scene(work, "s3")
            history.lines.insert(1, SceneLine(index=99, speaker="Aurel Vane", text=later.summary,
                                              heard_by=[own.name], at=str(at)))
            return history

        monkeypatch.setattr(scene_group, "group_history", broken)

    return install


def test_a_group_request_sends_nothing_beyond_the_answering_characters_horizon(tmp_path: Path):
    with _served(secret_world(), tmp_path / "world") as (client, model):
        sent, reply = _ask(client, model, GROUP)
    assert "Aurel Vane: Good evening, Ord." in sent and "Bram Tull: I will sit by the fire" in sent
    assert _word_check(tmp_path / "world", sent, reply) == 0
    planted, found = _canary_check(tmp_path)
    assert planted >= 10 and found == []


def test_a_planted_later_line_is_caught_by_both_checks(tmp_path: Path, plant_a_later_line):
    plant_a_later_line()
    with _served(secret_world(), tmp_path / "world") as (client, model):
        sent, reply = _ask(client, model, GROUP)
    assert "becomes Silas Crane" in sent
    assert _word_check(tmp_path / "world", sent, reply) > 0
    _, found = _canary_check(tmp_path)
    assert "s3" in found
