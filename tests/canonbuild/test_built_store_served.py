"""A store made by ``canon build`` feeds everything else, in canon: ``/v1/models``, ``/v1`` chats at
two time points, a card, and the leak audit (0 on incanon's own surfaces)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from incanon.audit import audit_work
from incanon.canon import CanonStore
from incanon.cli.main import app
from incanon.graph import HashEmbedder
from incanon.models import ScriptedModel, load_chat_model
from incanon.serve import ServeConfig, create_app

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "examples" / "book" / "saltmere.txt"
HELPER = f"scripted:{ROOT / 'examples' / 'book' / 'helper.json'}"
WORK = "the-clock-of-saltmere"
#: Text of the scene Mara missed (1-2-2) and of later chapters: never in her prompt at the end of book 1.
MISSED_OR_LATER = ("purse of silver", "cargo is worth", "storm came", "Harbour Keeper", "confess")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    store = tmp_path_factory.mktemp("built") / "canon"
    result = CliRunner().invoke(app, ["canon", "build", str(BOOK), "--store", str(store), "--helper", HELPER,
                                      "--no-cache"])
    assert result.exit_code == 0, result.output
    return store


@pytest.fixture
def served(built: Path, tmp_path: Path) -> Iterator[tuple[TestClient, ScriptedModel]]:
    model = ScriptedModel(default="I mend clocks.", name="scripted-character")
    config = ServeConfig(canon=built, runs=tmp_path / "runs.sqlite", model="scripted-character", cache=False)
    with TestClient(create_app(config, model=load_chat_model(model)), base_url="http://127.0.0.1") as client:
        yield client, model


def _prompt(model: ScriptedModel) -> str:
    return "\n".join(m.content for m in model.calls[-1].messages)


def test_models_list_every_time_point_and_name_nothing_later(served) -> None:
    client, _ = served
    # Labels are listed to a reader who has read the whole book (without a reader's position the
    # ids are positions, which tell no event).
    bare = {e["id"] for e in client.get("/v1/models").json()["data"]}
    assert f"{WORK}/Mara Quill@1-2-1" in bare and not any("letter" in i for i in bare)
    entries = {e["id"]: e for e in client.get("/v1/models", headers={"X-Incanon-Reader-At": "9"}).json()["data"]}
    assert {f"{WORK}/Mara Quill@{label}" for label in ("after finding the letter in the clock", "end of book 1",
                                                         "end of the story")} <= set(entries)
    early = json.dumps(entries[f"{WORK}/Mara Quill@end of book 1"])
    assert "Harbour Keeper" not in early and "Harbour Keeper" in json.dumps(entries[f"{WORK}/Mara Quill@end of the story"])


def test_chats_at_two_time_points_see_only_their_own_past(served) -> None:
    client, model = served
    for label, later_visible in (("end of book 1", False), ("end of the story", True)):
        reply = client.post("/v1/chat/completions", json={
            "model": f"{WORK}/Mara Quill@{label}", "messages": [{"role": "user", "content": "What did you find?"}]})
        assert reply.status_code == 200, reply.text
        assert reply.json()["choices"][0]["message"]["content"] == "I mend clocks."
        prompt = _prompt(model)
        assert "letter" in prompt
        leaked = [t for t in MISSED_OR_LATER if t in prompt]
        if later_visible:
            assert "Harbour Keeper" in prompt  # her later name is hers at the end of the story
        else:
            assert leaked == [], leaked
        # The tavern scene is one she missed at every point.
        assert "purse of silver" not in prompt and "cargo is worth" not in reply.text


def test_card_at_end_of_book_1_and_the_leak_audit(built: Path, tmp_path: Path) -> None:
    out = tmp_path / "mara.json"
    result = CliRunner().invoke(app, ["canon", "card", "export", "--store", str(built), "--work", WORK, "--character",
                                      "Mara", "--at", "end of book 1", "--out", str(out)])
    assert result.exit_code == 0, result.output
    card = out.read_text(encoding="utf-8")
    assert "letter" in card and not [t for t in MISSED_OR_LATER if t in card]
    with CanonStore.open(built) as store:
        report = asyncio.run(audit_work(store, WORK, methods=("in-canon",), embedder=HashEmbedder()))
    assert len(report.points) == 7 and report.strict_leaks() == 0
