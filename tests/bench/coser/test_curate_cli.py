"""``incanon coser curate | sample | export-sft`` end to end in a subprocess, with a scripted model."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from incanon.testing.cli import run_cli

CONTENT = """Chapter 1

The Lamphouse smelled of fen-oil and cold ash. Wren came through the door at a run, her cap in her fist.

"You're late, child," said Ottilie. "Spare me," said Dace, without looking up.

Chapter 2

The wind came in off the sea at dusk. Wren climbed the Beacon stair with the lamp.

"Keep it lit," said Dace from below. The lamp flared and held through the night.
"""


def _plot(first: str, last: str, summary: str) -> dict:
    return {"chapter_title": "Chapter 1", "first_sentence": first, "last_sentence": last, "prominence": 60,
            "summary": summary, "key_characters": [{"name": "Wren", "description": "An apprentice.", "summary": "Wren acts."}],
            "conversation": [{"scenario": "Inside.", "topic": "Work",
                              "key_characters": [{"name": "Wren", "motivation": "Do well."}, {"name": "Dace", "motivation": "Win."}],
                              "dialogues": [{"character": "Dace", "message": "[Beat her.] Spare me."},
                                            {"character": "Wren", "message": "[Fine.] (nods) I'm late."},
                                            {"character": "Environment", "message": "Wind at the door."}]}],
            "state": "finished", "continues": -1}


EXTRACT = {"chapter_beginnings": ["Chapter 1", "Chapter 2"], "next_chunk_start": None, "plots": [
    _plot("The Lamphouse smelled of fen-oil and cold ash.", '"Spare me," said Dace, without looking up.', "Wren is late."),
    _plot("The wind came in off the sea at dusk.", "The lamp flared and held through the night.", "Wren keeps the lamp lit."),
]}
RULES = {"rules": [
    {"match": "=== Passage ===", "response": json.dumps(EXTRACT)},
    {"match": "=== Conversation and background ===",
     "response": json.dumps({"scenario": "Dawn in the Lamphouse, before anyone speaks.",
                             "key_characters": [{"name": "Wren", "motivation": "Slip in unseen."},
                                                {"name": "Dace", "motivation": "Needle her."}]})},
    {"match": "to_official_name",
     "response": json.dumps({"named_characters": ["Wren Callow", "Dace Morrow"],
                             "to_official_name": {"Wren": "Wren Callow", "Dace": "Dace Morrow"}})},
    {"match": "===Profile===", "response": "===Profile===\nAn apprentice lamplighter of Harrowmere."},
]}


def _cli(*args: str, home: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, INCANON_HOME=str(home))
    return run_cli(["coser", *args],
                   env=env, timeout=300)


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    root = tmp_path_factory.mktemp("coser-cli")
    (root / "rules.json").write_text(json.dumps(RULES))
    (root / "books.jsonl").write_text(json.dumps({"title": "The Wall-Lamps", "author": "A. Writer", "content": CONTENT}) + "\n")
    return root


def _curate(work: Path) -> subprocess.CompletedProcess:
    return _cli("curate", str(work / "books.jsonl"), "--out", str(work / "out"), "--store", str(work / "canon"),
                "--helper", f"scripted:{work / 'rules.json'}", "--json", home=work / "home")


def test_curate_writes_the_book_and_the_store(work):
    res = _curate(work)
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    (book,) = doc["books"]
    assert book["chunks"] == 1 and book["failed_chunks"] == [] and book["plots"] == 2 and book["held_out_plots"] == 1
    assert book["usage"]["calls"] == 1 + 2 + 1 + 2  # extraction, two refinements, names, two profiles
    data = json.loads((work / "out" / "The Wall-Lamps.json").read_text())
    assert data["split_plot_index"] == 1 and sorted(data["character_datasets"]) == ["Dace Morrow", "Wren Callow"]
    conv = data["plots"][0]["conversation"][0]
    assert conv["scenario"] == "Dawn in the Lamphouse, before anyone speaks."
    assert conv["dialogues"][0]["character"] == "Dace Morrow"
    assert data["plots"][1]["text"].startswith("The wind came in off the sea")
    from incanon.canon import CanonStore

    with CanonStore.open(work / "canon") as store:
        assert store.character("the-wall-lamps", "Wren").name == "Wren Callow"
        (scene,) = store.scenes("the-wall-lamps")  # the held-out plot stays out
        assert str(scene.position) == "1-1-1"


def test_curate_again_resumes(work):
    res = _curate(work)
    assert res.returncode == 0, res.stderr
    (book,) = json.loads(res.stdout)["books"]
    assert book["resumed_chunks"] == 1 and book["usage"]["calls"] == 6  # journaled spend, no new calls
    assert "resumed" in res.stderr


def test_sample_and_export_sft(work):
    if not (work / "out" / "The Wall-Lamps.json").exists():
        _curate(work)
    res = _cli("sample", str(work / "out"), "--out", str(work / "test.json"), "--limit", "4", "--seed", "3", "--json",
               home=work / "home")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert doc["samples"] == 1 and doc["in-domain"] == 1
    (sample,) = json.loads((work / "test.json").read_text())
    assert sample["book"] == "The Wall-Lamps" and sample["plot"]["i_p"] == 1
    assert sample["key_characters"][0]["motivation"] == sample["key_characters"][0]["thought"]
    res = _cli("export-sft", str(work / "out"), "--out", str(work / "sft.jsonl"), "--nsp-fraction", "1", "--json",
               home=work / "home")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    # The training plot's one conversation: Dace, Wren and the Environment in four passes, and four NSP samples.
    assert (doc["samples"], doc["character"], doc["environment"], doc["nsp"]) == (16, 8, 4, 4)
    lines = [json.loads(line) for line in (work / "sft.jsonl").read_text().splitlines()]
    assert all(list(line) == ["conversations"] for line in lines)
    first = lines[0]["conversations"]
    assert first[0]["from"] == "system" and first[1] == {"from": "human", "value": "===Conversation Start===\n\n"}
    assert first[2] == {"from": "assistant", "value": "Dace Morrow: Spare me.\n\n"}  # thoughts removed in pass 0
    res = _cli("export-sft", str(work / "out"), "--out", str(work / "sft2.json"), "--nsp-fraction", "0",
               "--no-environment", home=work / "home")
    assert res.returncode == 0 and "8 ShareGPT samples (8 character, 0 Environment, 0 next-speaker)" in res.stdout


def test_bad_input_is_one_line_and_exit_2(work):
    (work / "bad.jsonl").write_text('{"title": "x"}\n')
    res = _cli("curate", str(work / "bad.jsonl"), "--out", str(work / "o2"), "--helper", "scripted:x.json",
               home=work / "home")
    assert res.returncode == 2 and "bad.jsonl (line 1): field 'content'" in res.stderr
    res = _cli("curate", str(work / "books.jsonl"), "--out", str(work / "o3"), "--caps", "plots=0",
               "--helper", "scripted:x.json", home=work / "home")
    assert res.returncode == 2 and "--caps: bad entry 'plots=0'" in res.stderr
    res = _cli("sample", str(work / "nowhere"), "--out", str(work / "t.json"), home=work / "home")
    assert res.returncode == 2 and "nowhere" in res.stderr


def test_dry_run_counts_chapters_and_calls_without_a_model(work):
    res = _cli("curate", str(work / "books.jsonl"), "--out", str(work / "dry"), "--helper", "scripted:missing.json",
               "--dry-run", "--json", home=work / "home")
    assert res.returncode == 0, res.stderr
    (book,) = json.loads(res.stdout)["books"]
    assert (book["chapters"], book["chunks"], book["extraction_calls"]) == (2, 1, 1)
    assert book["prompt_tokens"] > 0 and not (work / "dry").exists()


def test_a_book_whose_every_chunk_failed_exits_non_zero_and_writes_nothing(work):
    (work / "junk.json").write_text(json.dumps({"rules": [{"match": "", "response": "no JSON here, sorry"}]}))
    res = _cli("curate", str(work / "books.jsonl"), "--out", str(work / "failed"), "--store", str(work / "canon2"),
               "--helper", f"scripted:{work / 'junk.json'}", "--attempts", "1", "--json", home=work / "home")
    assert res.returncode != 0
    assert "all 1 chunks failed" in res.stderr and json.loads(res.stdout)["books"] == []
    assert not (work / "failed" / "The Wall-Lamps.json").exists() and not (work / "canon2").exists()
