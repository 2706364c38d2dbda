"""On a built book with minor characters (no time points), every point has one name on every
surface: the ``/v1/models`` ids, the leak audit, the web app's timeline and chats, the chat's
``/at`` and cards. The end of the story is one position, called "end of the story" where a time
point stands there and by its position elsewhere; never "end" or the axis' end, 2047."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from incanon.audit import audit_points
from incanon.canon import CanonStore
from incanon.canon.story_end import story_end
from incanon.cards import EXTENSION, build_card
from incanon.chat import ChatSession
from incanon.chat.commands import handle
from incanon.cli.main import app
from incanon.models import ScriptedModel, load_chat_model
from incanon.serve import ServeConfig, create_app

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "examples" / "book" / "saltmere.txt"
HELPER = f"scripted:{ROOT / 'examples' / 'book' / 'helper.json'}"
WORK = "the-clock-of-saltmere"
MAIN, MINOR = "Mara Quill", "Tobias Venn"
READ_ALL = "9"  # a reader past the last chapter: every label may be shown


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    store = tmp_path_factory.mktemp("built-points") / "canon"
    result = CliRunner().invoke(app, ["canon", "build", str(BOOK), "--store", str(store), "--helper", HELPER,
                                      "--main-count", "1", "--no-cache"])
    assert result.exit_code == 0, result.output
    return store


@pytest.fixture
def client(built: Path, tmp_path: Path) -> Iterator[TestClient]:
    model = ScriptedModel(default="I mend clocks.", name="scripted-character")
    config = ServeConfig(canon=built, runs=tmp_path / "runs.sqlite", model="scripted-character", cache=False,
                         chats=False)
    with TestClient(create_app(config, model=load_chat_model(model)), base_url="http://127.0.0.1") as served:
        yield served


def _listed(client: TestClient, reader: str | None) -> set[tuple[str, str]]:
    """(character, the point as the id names it) of every ``/v1/models`` entry."""
    headers = {"X-Incanon-Reader-At": reader} if reader else {}
    return {(e["incanon"]["character"], e["id"].rsplit("@", 1)[1])
            for e in client.get("/v1/models", headers=headers).json()["data"]}


def test_the_audit_checks_every_served_point_under_the_name_it_is_served_by(built: Path, client: TestClient) -> None:
    with CanonStore.open(built) as store:
        points = audit_points(store, WORK)
        end = str(story_end(store, WORK))
    by_position = {(record.name, str(at)) for record, _, at in points}
    by_label = {(record.name, label or str(at)) for record, label, at in points}
    listed = _listed(client, None) | _listed(client, READ_ALL)
    assert _listed(client, None) <= by_position and _listed(client, READ_ALL) <= by_label
    assert {(MAIN, "end of the story"), (MINOR, end)} <= listed
    assert not {name for _, name in listed | by_label} & {"end", "2047"}


def test_the_end_is_one_position_in_the_web_app_chats_and_cards(built: Path, client: TestClient) -> None:
    with CanonStore.open(built) as store:
        end = str(story_end(store, WORK))
    reader = {"reader_at": READ_ALL}
    timeline = client.get(f"/api/works/{WORK}/timeline", params=reader).json()
    last = timeline["stops"][-1]
    assert (last["at"], last["label"]) == (end, f"{end} · end of the story")
    assert [m["label"] for m in last["marks"]] == ["end of the story"]
    chats = {who: client.post("/api/chats", params=reader, json={"work": WORK, "character": who, "at": at}).json()
             for who, at in ((MAIN, "end of the story"), (MINOR, end))}
    assert (chats[MAIN]["at"], chats[MAIN]["time_label"]) == (end, "end of the story")
    assert (chats[MINOR]["at"], chats[MINOR]["time_label"]) == (end, "")
    with CanonStore.open(built) as store:
        assert build_card(store, WORK, MINOR, end).data.extensions[EXTENSION]["when"] == f"story position {end}"
        assert build_card(store, WORK, MAIN, end).data.extensions[EXTENSION]["when"] == "end of the story"
        session = ChatSession(store, character=MINOR, at="1-1-1", model=ScriptedModel(default="Aye."))
        moved = asyncio.run(handle(session, f"/at {end}"))
        assert moved.message == f"{MINOR} is now at {end}"
