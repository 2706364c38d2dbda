"""``incanon canon build`` on the sample Gutenberg-layout book with its scripted helper: what the
store holds, rebuilds that redo nothing, a new chapter that costs only its own calls, the dry run,
and the refusals."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from incanon.canon import CanonStore
from incanon.cli.main import app
from incanon.testing.cli import run_main

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "examples" / "book" / "saltmere.txt"
HELPER = f"scripted:{ROOT / 'examples' / 'book' / 'helper.json'}"
WORK = "the-clock-of-saltmere"


def _build(*args: str):
    result = CliRunner().invoke(app, ["canon", "build", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


def _main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    """Run ``incanon canon build ARGS`` through the console entry point (its error handling
    included): (exit code, stderr)."""
    code = run_main(["canon", "build", *args])
    return code, capsys.readouterr().err


def _run(tmp_path: Path, book: Path = BOOK, *extra: str) -> dict:
    result = _build(str(book), "--store", str(tmp_path / "canon"), "--helper", HELPER, "--cache",
                    str(tmp_path / "cache.sqlite"), "--embedder", "none", "--json", *extra)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_the_store_holds_scenes_dated_aliases_time_points_and_profiles(tmp_path: Path) -> None:
    report = _run(tmp_path)
    assert (report["books"], report["chapters"], report["scenes"], report["characters"]) == (2, 4, 7, 3)
    assert report["main_characters"] == ["Mara Quill", "Tobias Venn", "Idris Hale"]
    assert report["dated_aliases"]["Mara Quill"] == {"the Harbour Keeper": "2-1-2"}
    assert report["time_points"]["Mara Quill"] == ["1-2-1", "1-2", "2-2"]
    assert report["profiles"] == 7 and report["stored"] == "created"
    assert report["graph"]["nodes"] >= 3 and report["graph"]["edges"] >= 1
    assert report["helper"]["calls"] > 0 and not report["failed_steps"]
    with CanonStore.open(tmp_path / "canon") as store:
        work = store.work(WORK)
        assert (work.title, work.author) == ("The Clock of Saltmere", "Incanon Sample Press")
        tavern = store.scene(WORK, "1-2-2")
        assert tavern.location == "the Anchor tavern" and set(tavern.participants) == {"Tobias Venn", "Idris Hale"}
        mara = store.character(WORK, "Mara")
        assert mara.first_position is not None and str(mara.first_position) == "1-1-1"
        early = next(tp for tp in mara.time_points if str(tp.position) == "1-2")
        assert "letter" in early.profile and "Harbour Keeper" not in early.profile
        assert not any("Gutenberg" in c.text for c in store.chunks(WORK))


def test_a_rebuild_calls_nothing_and_a_new_chapter_costs_only_its_own_calls(tmp_path: Path) -> None:
    first = _run(tmp_path)
    again = _run(tmp_path)
    assert again["stored"] == "unchanged" and again["helper"]["calls"] == 0
    # The canon stages answer from the cache (4 splits, 7 participant lists, 1 grouping of names,
    # 1 identity question, 7 scenes marked for perception, 3 time-point choices, 7 profiles); the
    # graph of an unchanged work is not touched at all.
    assert again["helper"]["cached_calls"] == 4 + 7 + 1 + 1 + 7 + 3 + 7 < first["helper"]["calls"]
    longer = tmp_path / "saltmere.txt"
    text = BOOK.read_text(encoding="utf-8")
    marker = "*** END OF THE PROJECT GUTENBERG EBOOK"
    shutil.copy(BOOK, longer)
    longer.write_text(text.replace(marker, "V. The New Spring\n\n\nIn spring the harbour clock rang the tide-bell "
                                           "again, and the boats went out on time.\n\n\n" + marker), encoding="utf-8")
    added = _run(tmp_path, longer)
    assert added["chapters"] == 5 and added["stored"] == "replaced"
    # New calls: the new chapter's split and participants (each with its repair turn, the
    # helper has no rule for them) and the graph of its one chunk; the rest is cached.
    assert 0 < added["helper"]["calls"] <= 8, added["helper"]
    assert added["helper"]["cached_calls"] >= 20
    assert "2-3" in added["chapters_kept_whole"]


def test_dry_run_calls_no_model_and_writes_nothing(tmp_path: Path) -> None:
    result = _build(str(BOOK), "--store", str(tmp_path / "canon"), "--helper", "scripted:/no/such/rules.json",
                    "--dry-run", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    rows = {r["label"]: r for r in data["estimate"]["rows"]}
    assert rows["scenes: split (per chapter)"]["calls"] == 4
    assert rows["extraction (+ gleaning)"]["calls"] > 0 and data["chapters"][2]["position"] == "2-1"
    assert not (tmp_path / "canon").exists()


def test_dry_run_prints_the_outline_with_parts_and_notes(tmp_path: Path) -> None:
    result = _build(str(BOOK), "--helper", "openai:gpt-4o-mini", "--dry-run")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    outline = lines[:lines.index("  2-2  The Reckoning  (136 words)") + 1]
    assert outline == ["Part 1: PART ONE  (2 chapters, 462 words)", "  1-1  The Clockmaker's Shop  (275 words)",
                       "  1-2  The Stopped Clock  (187 words)", "Part 2: PART TWO  (2 chapters, 266 words)",
                       "  2-1  The Storm  (130 words)", "  2-2  The Reckoning  (136 words)"]
    assert "contents list: its 4 entries match the chapters found" in result.stderr
    data = json.loads(_build(str(BOOK), "--helper", "openai:gpt-4o-mini", "--dry-run", "--json").stdout)
    assert data["author"] == "Incanon Sample Press" and data["chapters"][2]["part"] == "PART TWO"
    assert [p["chapters"] for p in data["parts"]] == [2, 2]
    assert "saltmere.txt: contents list: its 4 entries match the chapters found" in data["notes"]


def test_a_long_chapter_costs_one_split_call_per_piece(tmp_path: Path) -> None:
    book = tmp_path / "long.txt"
    book.write_text("Chapter 1\n\n" + "\n\n".join(["The keeper trimmed the lamp and wrote the names down."] * 3000)
                    + "\n\nChapter 2\n\nA short one.\n", encoding="utf-8")
    data = json.loads(_build(str(book), "--helper", "openai:gpt-4o-mini", "--dry-run", "--json", "--no-graph").stdout)
    split = next(r for r in data["estimate"]["rows"] if r["label"] == "scenes: split (per chapter)")
    assert split["calls"] == 4 and "1 chapter(s) over 60,000 characters are split in pieces" in split["note"]


def test_nothing_usable_exits_1_and_writes_no_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rules = tmp_path / "silent.json"
    rules.write_text(json.dumps({"rules": [], "default": "{}"}), encoding="utf-8")
    code, err = _main(capsys, str(BOOK), "--store", str(tmp_path / "canon"), "--helper", f"scripted:{rules}",
                      "--no-cache", "--embedder", "none")
    assert code == 1 and "no character was found in 4 scenes" in err
    assert not (tmp_path / "canon").exists()


def test_a_work_made_by_another_command_is_not_overwritten(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "canon"
    assert CliRunner().invoke(app, ["canon", "import", str(ROOT / "examples" / "world.json"), "--store",
                                    str(store)]).exit_code == 0
    code, err = _main(capsys, str(BOOK), "--store", str(store), "--work", "lanterns", "--helper", HELPER,
                      "--no-cache", "--embedder", "none")
    assert code == 2 and "was not made by canon build" in err
    with CanonStore.open(store) as canon:
        assert canon.work("lanterns").title == "The Lanterns of Harrowmere"
    replaced = _build(str(BOOK), "--store", str(store), "--work", "lanterns", "--helper", HELPER, "--no-cache",
                      "--embedder", "none", "--fresh", "--no-graph")
    assert replaced.exit_code == 0, replaced.output
    with CanonStore.open(store) as canon:
        assert canon.work("lanterns").title == "The Clock of Saltmere"


def test_unknown_main_character_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _main(capsys, str(BOOK), "--store", str(tmp_path / "canon"), "--helper", HELPER, "--no-cache",
                      "--characters", "Mara,Nobody Else", "--embedder", "none")
    assert code == 2 and "'Nobody Else'" in err and "Mara Quill" in err
    assert not (tmp_path / "canon").exists()


def test_profile_text_cut_to_the_budget_is_reported(tmp_path: Path) -> None:
    report = _run(tmp_path, BOOK, "--profile-tokens", "100", "--no-graph")
    assert report["profile_scenes_cut"] > 0
    assert _run(tmp_path / "wide", BOOK, "--no-graph")["profile_scenes_cut"] == 0


def test_embedder_none_reaches_the_graph_stage(tmp_path: Path) -> None:
    """`--embedder none` embeds nothing at all: no chunk vectors, and no graph vectors either."""
    import sqlite3

    report = _run(tmp_path)
    assert report["graph"]["chunks_extracted"] > 0
    with sqlite3.connect(tmp_path / "canon" / "canon.sqlite") as conn:
        counts = [conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
                  for table in ("vectors", "graph_vectors", "graph_chunk_vectors")]
    assert counts == [0, 0, 0]
