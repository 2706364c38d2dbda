"""A raw markdown book to items in one command: the helper finds the scenes (placed in the book's
text, numbered in text order) and their participants, they go to the canon store, and the items'
data types agree with what the text says."""

from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from incanon.bench.timechara.scenes import locate
from incanon.canon import CanonStore
from incanon.canon.position import Position
from incanon.cli.main import app

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "timechara" / "books" / "raw"
BOOK = EXAMPLE / "tidewater.md"
MAIN = "Ines Harlow,Tobin Reyes,Maro Quill"
# Who the text puts in each scene the helper picks (read off tidewater.md by hand).
PRESENT = {"1-1-1": {"Ines Harlow", "Tobin Reyes"}, "1-1-2": {"Ines Harlow", "Tobin Reyes"},
           "1-2-1": {"Tobin Reyes", "Maro Quill"}, "1-3-1": {"Ines Harlow", "Maro Quill"}}


def _build(tmp_path: Path, rules: Path = EXAMPLE / "helper.json", *extra: str):
    args = ["timechara", "build", "--book", str(BOOK), "--store", str(tmp_path / "canon"),
            "--out", str(tmp_path / "items.jsonl"), "--helper", f"scripted:{rules}", "--characters", MAIN,
            "--no-cache", *extra]
    return CliRunner().invoke(app, args)


def _items(tmp_path: Path) -> list[dict]:
    return [json.loads(line) for line in (tmp_path / "items.jsonl").read_text().splitlines()]


def _expected(item: dict) -> str:
    if Position.parse(item["scene"]) > Position.parse(item["character_position"]):
        return "future"
    if item["data_type"] == "past-only":
        return "past-only"
    return "past-presence" if item["character"] in PRESENT[item["scene"]] else "past-absence"


def test_locate_finds_the_passage_despite_spacing_and_quotes():
    chapter = 'He said, "Go now."\n\n"I will," she said. "Tomorrow, at the mill, before dawn."  Then she left.'
    start, end = locate(chapter, "\u201cI will,\u201d she said.   \u201cTomorrow, at the mill, before dawn.\u201d")
    assert chapter[start:end] == '"I will," she said. "Tomorrow, at the mill, before dawn."'
    assert locate(chapter, "She promised to go to the mill the next morning.") is None


def test_raw_book_builds_scenes_participants_and_right_data_types(tmp_path):
    result = _build(tmp_path)
    assert result.exit_code == 0, result.output
    said = " ".join(result.stderr.split())  # the console wraps long lines
    assert "4 scenes stored" in said
    assert "1-3 scene 2: the passage is not in the chapter's text" in said  # an invented passage
    store = CanonStore.open(tmp_path / "canon")
    scenes = {s.id: s for s in store.scenes("tidewater")}
    assert set(scenes) == set(PRESENT)
    assert {k: set(s.participants) for k, s in scenes.items()} == PRESENT
    # The helper gave chapter 1's scenes out of order; they are numbered in text order.
    first = "\n".join(c.text for c in store.chunks("tidewater") if c.scene == "1-1-1")
    assert first.startswith('"You were meant to be at the dock,"')
    assert str(scenes["1-1-2"].position) == "1-1-2"
    items = _items(tmp_path)
    assert {i["data_type"] for i in items} == {"future", "past-absence", "past-presence", "past-only"}
    wrong = [(i["scene"], i["character"], i["character_position"], i["data_type"]) for i in items
             if i["data_type"] != _expected(i)]
    assert wrong == []


def test_scene_without_participant_list_gets_no_presence_items(tmp_path):
    rules = json.loads((EXAMPLE / "helper.json").read_text())["rules"]
    for rule in rules:
        if rule["match"] == r"story position 1-3-1\)\. List who is there":
            rule["response"] = "I cannot tell."  # unreadable, also after the repair turn
        if rule["match"] == r"story position 1-3-1\)\. Summarize":
            rule["response"] = json.dumps({"event_summary": "Ines and Maro compared the books.", "participants": []})
    path = tmp_path / "rules.json"
    path.write_text(json.dumps({"rules": rules}))
    result = _build(tmp_path, path)
    assert result.exit_code == 0, result.output
    said = " ".join(result.stderr.split())  # the console wraps long lines
    assert "1 scenes got no participant list from the helper: 1-3-1" in said
    assert "no presence/absence item was made from them: 1-3-1" in said
    items = _items(tmp_path)
    assert not [i for i in items if i["scene"] == "1-3-1" and i["data_type"].startswith("past-") and
                i["data_type"] != "past-only"]
    assert [i for i in items if i["scene"] == "1-3-1" and i["data_type"] == "future"]
    assert all(i["data_type"] == _expected(i) for i in items if i["scene"] != "1-3-1")


def test_dry_run_counts_calls_before_any_call(tmp_path):
    silent = tmp_path / "silent.json"
    silent.write_text(json.dumps({"rules": []}))  # any call would fail
    result = _build(tmp_path, silent, "--dry-run")
    assert result.exit_code == 0, result.output
    assert re.search(r"scene extraction \(per chapter\)\s+3\s+6", result.stdout)
    assert "(no model was called)" in result.stdout
    assert not (tmp_path / "items.jsonl").exists() and not (tmp_path / "canon").exists()


def test_raw_book_needs_main_characters(tmp_path):
    result = CliRunner().invoke(app, ["timechara", "build", "--book", str(BOOK), "--store", str(tmp_path / "c"),
                                      "--out", str(tmp_path / "i.jsonl"), "--helper", "scripted:x.json"])
    assert result.exit_code != 0
    assert "--book needs --characters" in str(result.exception)  # main() prints it, exit 2
