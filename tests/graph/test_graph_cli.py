"""``incanon graph build/show`` with a scripted model file: build, resume, show, report empties."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from incanon.cli.main import app
from incanon.errors import NotFoundError
from incanon.testing.cli import run_main

runner = CliRunner()
EXTRACTION = {"entities": [{"name": "Ada Vane", "type": "character", "description": "keeps the lamp"},
                           {"name": "Mistress Vane", "type": "character", "description": "the lamp keeper"},
                           {"name": "Beacon Tower", "type": "location", "description": "a tall tower"}],
              "relations": [{"source": "Mistress Vane", "target": "Beacon Tower", "description": "keeps its lamp",
                             "strength": 8}]}
RULES = {"rules": [
    {"match": "missing from your answer", "response": json.dumps({"entities": [], "relations": []})},
    {"match": "NOTHING HERE", "response": json.dumps({"entities": [], "relations": []})},
    {"match": "list the entities", "response": json.dumps(EXTRACTION)},
    {"match": "one and the same", "response": json.dumps({"reason": "title and surname", "same": True})},
    {"match": "Which one name", "response": json.dumps({"name": "Ada Vane"})},
], "default": "A keeper of lamps."}


def _invoke(*args: str):
    result = runner.invoke(app, list(args))
    return result


def test_build_resume_show_and_empty_chunks(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps(RULES), encoding="utf-8")
    book = tmp_path / "tale.md"
    book.write_text("# Book 1: Tale\n## Chapter 1: Lamps\n<!-- scene 1-1-1 -->\nAda Vane climbed the Beacon Tower.\n"
                    "<!-- scene 1-1-2 -->\nMistress Vane trimmed the wick.\n", encoding="utf-8")
    notes = tmp_path / "notes.txt"
    notes.write_text("NOTHING HERE but weather.", encoding="utf-8")
    store = tmp_path / "canon"
    common = ["--store", str(store), "--helper", f"scripted:{rules}", "--no-cache", "--gleanings", "1"]
    result = _invoke("graph", "build", str(book), str(notes), "--work", "tale", "--title", "Tale", *common, "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["chunks_extracted"] == 3 and report["graph"]["nodes"] == 2
    assert [i["chunk"] for i in report["issues"]] == ["notes.txt"] and report["issues"][0]["status"] == "empty"
    assert report["integration"]["normalization"]["llm_calls"] >= 2

    again = _invoke("graph", "build", str(book), str(notes), "--work", "tale", *common, "--json")
    assert json.loads(again.stdout)["chunks_extracted"] == 0

    human = _invoke("graph", "build", *common)  # the work's own chunks: none (the corpus is the graph's)
    assert human.exit_code != 0 and isinstance(human.exception, NotFoundError)

    shown = json.loads(_invoke("graph", "show", "--store", str(store), "--json").stdout)
    assert shown["counts"]["nodes"] == 2 and shown["statuses"] == {"empty": 1, "integrated": 2}
    assert shown["issues"][0]["chunk"] == "notes.txt"
    one = json.loads(_invoke("graph", "show", "--store", str(store), "--entity", "mistress vane", "--json").stdout)
    assert one["entity"]["name"] == "Ada Vane" and one["entity"]["aliases"] == ["Mistress Vane"]
    assert sorted({p["position"] for p in one["provenance"]}) == ["1-1-1", "1-1-2"]
    assert one["relations"][0]["target"] in ("Beacon Tower", "Ada Vane")
    text = _invoke("graph", "show", "--store", str(store), "--entity", "Ada Vane", "--at", "1-1-1")
    assert text.exit_code == 0 and "1 mentions" not in text.stdout and "tale.md:1-1-1" in text.stdout
    missing = _invoke("graph", "show", "--store", str(store), "--entity", "Nobody")
    assert isinstance(missing.exception, NotFoundError)


def test_dry_run_writes_nothing_and_a_build_that_yields_nothing_leaves_no_trace(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps(RULES), encoding="utf-8")
    notes = tmp_path / "notes.txt"
    notes.write_text("NOTHING HERE but weather. " * 300, encoding="utf-8")
    store = tmp_path / "canon"
    common = ["--store", str(store), "--helper", f"scripted:{rules}", "--no-cache", "--work", "w"]
    dry = _invoke("graph", "build", str(notes), *common, "--dry-run", "--json")
    assert dry.exit_code == 0, dry.output
    plan = json.loads(dry.stdout)
    assert plan["dry_run"] and plan["chunks"] >= 3 and plan["estimate"]["calls"] > 0 and not store.exists()
    failed = _invoke("graph", "build", str(notes), *common, "--character", "Ada Vane")
    assert failed.exit_code == 1 and "failed or yielded nothing" in str(failed.exception)
    assert not store.exists()  # the store it created is gone again
    book = tmp_path / "tale.md"
    book.write_text("## Chapter 1\n<!-- scene 1-1-1 -->\nAda Vane climbed the Beacon Tower.\n", encoding="utf-8")
    assert _invoke("graph", "build", str(book), *common, "--work", "tale").exit_code == 0
    again = _invoke("graph", "build", str(notes), *common)
    assert again.exit_code == 1
    shown = json.loads(_invoke("graph", "show", "--store", str(store), "--work", "tale", "--json").stdout)
    assert shown["counts"]["nodes"] == 2  # the store and its other work stay; the failed work is removed
    from incanon.canon import CanonStore

    assert [w.id for w in CanonStore.open(store).works()] == ["tale"]


def test_files_with_one_name_in_two_folders_are_two_documents(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps(RULES), encoding="utf-8")
    for folder, text in (("a", "Ada Vane keeps the lamp."), ("b", "Mistress Vane trims the wick."), ("c", "Ada Vane keeps the lamp.")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "notes.txt").write_text(text, encoding="utf-8")
    store = tmp_path / "canon"
    result = _invoke("graph", "build", "a/notes.txt", "b/notes.txt", "c/notes.txt", "--store", str(store), "--work", "w",
                     "--helper", f"scripted:{rules}", "--no-cache", "--json")
    assert result.exit_code == 0, result.output
    assert "same content as a/notes.txt" in result.stderr
    shown = json.loads(_invoke("graph", "show", "--store", str(store), "--json").stdout)
    assert shown["documents"] == {"a/notes.txt": 1, "b/notes.txt": 1}


def test_bad_options_fail_before_anything_is_written(tmp_path: Path):
    store = tmp_path / "canon"
    notes = tmp_path / "n.txt"
    notes.write_text("text", encoding="utf-8")
    for extra in (["--born", "1770"], ["--axis", "year"], ["--character", "A||B"]):
        result = _invoke("graph", "build", str(notes), "--store", str(store), "--work", "w", "--helper", "scripted:x.json", *extra)
        assert result.exit_code != 0 and not store.exists(), extra


def test_content_indexed_under_another_path_is_not_extracted_again(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps(RULES), encoding="utf-8")
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "notes.txt").write_text("Ada Vane keeps the lamp.", encoding="utf-8")
    store = tmp_path / "canon"
    common = ("--store", str(store), "--work", "w", "--helper", f"scripted:{rules}", "--no-cache", "--json")
    first = _invoke("graph", "build", "a/notes.txt", *common)
    assert first.exit_code == 0, first.output
    mentions = json.loads(_invoke("graph", "show", "--store", str(store), "--entity", "Ada Vane", "--json").stdout)
    (tmp_path / "moved").mkdir()
    (tmp_path / "moved" / "copy.txt").write_text("Ada Vane keeps the lamp.", encoding="utf-8")
    (tmp_path / "b.txt").write_text("Mistress Vane trims the wick.", encoding="utf-8")
    dry = _invoke("graph", "build", "moved/copy.txt", "b.txt", *common[:4], "--dry-run", "--json")
    assert json.loads(dry.stdout)["chunks"] == 1  # only b.txt would be extracted
    second = _invoke("graph", "build", "moved/copy.txt", "b.txt", *common)
    assert second.exit_code == 0, second.output
    report = json.loads(second.stdout)
    assert report["chunks_extracted"] == 1 and report["skipped"] == [
        "moved/copy.txt: same content as a/notes.txt, already indexed"]
    assert "skipped moved/copy.txt: same content as a/notes.txt" not in second.stderr  # --json: stdout only
    again = json.loads(_invoke("graph", "show", "--store", str(store), "--entity", "Ada Vane", "--json").stdout)
    # The scripted extraction names Ada Vane in every chunk: 2 mentions per document, none from the copy.
    assert mentions["entity"]["mentions"] == 2 and again["entity"]["mentions"] == 4
    assert {p["source"] for p in again["provenance"]} == {"a/notes.txt", "b.txt"}
    shown = json.loads(_invoke("graph", "show", "--store", str(store), "--json").stdout)
    assert shown["documents"] == {"a/notes.txt": 1, "b.txt": 1}


def _tale(tmp_path: Path) -> tuple[Path, list[str]]:
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps(RULES), encoding="utf-8")
    book = tmp_path / "tale.md"
    book.write_text("# Book 1: Tale\n## Chapter 1: Lamps\n<!-- scene 1-1-1 -->\nAda Vane climbed the Beacon Tower.\n"
                    "<!-- scene 1-1-2 -->\nMistress Vane trimmed the wick.\n", encoding="utf-8")
    return book, ["--store", str(tmp_path / "canon"), "--work", "tale", "--helper", f"scripted:{rules}",
                  "--no-cache", "--embedder", "none"]


def test_a_graph_build_waits_for_no_one_and_writes_nothing_into_a_store_another_build_holds(tmp_path: Path,
                                                                                             capsys) -> None:
    """canon build and graph build take one lock per store: both write its graph."""
    import os

    from incanon.canonbuild.lock import BuildLockedError, build_lock

    book, common = _tale(tmp_path)
    with build_lock(tmp_path / "canon", "canon build"):
        assert run_main(["graph", "build", str(book), *common]) == BuildLockedError.exit_code
        assert f"another canon build (pid {os.getpid()}) is writing this store" in capsys.readouterr().err
        assert sorted(p.name for p in (tmp_path / "canon").iterdir()) == [".canon-build.lock"]
    assert run_main(["graph", "build", str(book), *common, "--json"]) == 0
    with build_lock(tmp_path / "canon", "graph build"):
        # The other way round: the refusal names the graph build that holds the store.
        assert run_main(["graph", "build", str(book), *common]) == 75
    assert "another graph build (pid" in capsys.readouterr().err


def test_a_graph_build_says_how_far_it_is(tmp_path: Path, monkeypatch) -> None:
    from incanon.canonbuild import progress as progress_module

    monkeypatch.setattr(progress_module, "EVERY_S", 0.0)
    monkeypatch.setattr(progress_module, "SPACING", 0.0)
    book, common = _tale(tmp_path)
    result = _invoke("graph", "build", str(book), *common)
    assert result.exit_code == 0, result.output
    assert "graph: 1 of 2 chunks extracted" in result.output and "left" in result.output
