"""The leak audit on three kinds of store: the sample world, a CoSER book imported from the
released layout, and a raw book turned into a store by ``timechara build --book``. incanon's own
surfaces (in-canon's prompt and evidence, the persona, the ``/v1/models`` entry, the card) carry
nothing from later positions or missed scenes; the baselines do, so the audit can fail; and the
command exits 1 when a world makes incanon's own surface leak."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from incanon.audit import PAPER_METHODS, audit_points, audit_work
from incanon.canon import CanonStore, write_world_file
from incanon.canon.horizon import Horizon
from incanon.canon.position import Position
from incanon.cli.main import app
from incanon.graph import HashEmbedder
from incanon.sample import sample_world

ROOT = Path(__file__).resolve().parents[2]
COSER_BOOK = ROOT / "examples" / "coser" / "final" / "The Wall-Lamps.json"
RAW_BOOK = ROOT / "examples" / "timechara" / "books" / "raw"
OWN = ("persona", "models", "card")


def _cli(*args: str):
    result = CliRunner().invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


def _totals(report) -> dict[tuple[str, str], int]:
    """(surface, method) → leaks summed over every character@point."""
    return {(row["surface"], row["method"]): row["total"] for row in report.table()}


def _assert_strict_clean(report, points: int) -> None:
    """incanon's own surfaces were audited at every point and leak nothing."""
    assert len(report.points) == points
    checked = {(row["surface"], row["method"]): row["checked"] for row in report.table()}
    for key in [(s, "-") for s in OWN] + [("prompt", "in-canon"), ("evidence", "in-canon")]:
        assert checked[key] == points, key
    leaking = [f.to_dict() for f in report.findings if f.method in ("in-canon", "-") and f.leaks.total]
    assert report.strict_leaks() == 0, leaking


def test_sample_world_own_surfaces_leak_nothing_at_any_point(lanterns: CanonStore) -> None:
    points = audit_points(lanterns, "lanterns")
    assert len(points) > 40  # every time point of every character, and first/last of the rest
    report = asyncio.run(audit_work(lanterns, "lanterns", methods=("in-canon",), embedder=HashEmbedder()))
    _assert_strict_clean(report, len(points))


def test_sample_world_baselines_leak_so_the_audit_can_fail(lanterns: CanonStore) -> None:
    report = asyncio.run(audit_work(lanterns, "lanterns", methods=("in-canon", "rag", "rag-cutoff"),
                                    embedder=HashEmbedder(), characters=["Wren"]))
    totals = _totals(report)
    assert totals[("prompt", "rag")] > 0 and totals[("evidence", "rag")] > 0
    # RAG-cutoff cuts by time only: the scenes Wren missed before now still get through.
    assert totals[("prompt", "rag-cutoff")] > 0
    cutoff = [f for f in report.findings if f.method == "rag-cutoff" and f.leaks.total]
    assert any(f.leaks.hidden_chunks for f in cutoff)
    assert totals[("prompt", "in-canon")] == 0 and report.strict_leaks() == 0


def test_coser_book_imported_from_the_released_layout(tmp_path: Path) -> None:
    store_path = tmp_path / "canon"
    # The held-out plot too: a third scene, with a character Dace never meets.
    result = _cli("coser", "import", str(COSER_BOOK), "--store", str(store_path), "--held-out")
    assert result.exit_code == 0, result.output
    with CanonStore.open(store_path) as store:
        (work,) = [w.id for w in store.works()]
        report = asyncio.run(audit_work(store, work, methods=("in-canon", *PAPER_METHODS),
                                        embedder=HashEmbedder()))
        _assert_strict_clean(report, len(audit_points(store, work)))
        # The audit can see what is hidden here: Dace never meets Ottilie Fane.
        dace = store.character(work, "Dace Morrow")
        horizon = Horizon(store, work, dace, Position.parse("1-3-1"))
        assert horizon.leaks("Ottilie Fane keeps the lamps.").total > 0


def test_store_built_from_a_raw_book_by_timechara_build(tmp_path: Path) -> None:
    store_path = tmp_path / "canon"
    result = _cli("timechara", "build", "--book", str(RAW_BOOK / "tidewater.md"), "--store", str(store_path),
                  "--out", str(tmp_path / "items.jsonl"), "--helper", f"scripted:{RAW_BOOK / 'helper.json'}",
                  "--characters", "Ines Harlow,Tobin Reyes,Maro Quill", "--no-cache")
    assert result.exit_code == 0, result.output
    with CanonStore.open(store_path) as store:
        report = asyncio.run(audit_work(store, "tidewater", methods=("in-canon", *PAPER_METHODS),
                                        embedder=HashEmbedder()))
        _assert_strict_clean(report, 9)  # three main characters, a time point per chapter
        # Whole chapters are chunks here: full RAG reads later chapters, and the audit says so.
        assert _totals(report)[("prompt", "rag")] > 0


def test_cli_json_rows_and_exit_code(tmp_path: Path, fake_embedder: str) -> None:
    store = tmp_path / "canon"
    assert _cli("canon", "import", str(ROOT / "examples" / "world.json"), "--store", str(store)).exit_code == 0
    result = _cli("canon", "audit", "--store", str(store), "--work", "lanterns", "--method", "in-canon",
                  "--method", "rag", "--character", "Wren", "--embedder", fake_embedder, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    rows = {(r["surface"], r["method"]): r for r in data["table"]}
    assert data["strict_leaks"] == 0 and len(data["points"]) == 5
    assert rows[("prompt", "rag")]["total"] > 0 and rows[("evidence", "rag")]["total"] > 0
    assert rows[("prompt", "in-canon")]["total"] == 0
    assert all(f["method"] == "rag" for f in data["findings"])


def test_cli_exits_1_when_a_time_point_profile_names_a_later_alias(tmp_path: Path, fake_embedder: str) -> None:
    world = sample_world()
    wren = next(c for c in world.characters if c.name == "Wren Callow")
    first = wren.time_points[0]
    assert first.label == "end of book 1" and wren.alias_from["Stormwren"] > str(first.position)
    # A world whose author wrote the early profile with hindsight: the name comes only in book 2.
    spoiled = first.model_copy(update={"profile": "Wren, whom Harrowmere will call Stormwren, trims wicks."})
    wren.time_points[0] = spoiled
    path = write_world_file(world, tmp_path / "spoiled.json")
    store = tmp_path / "canon"
    assert _cli("canon", "import", str(path), "--store", str(store)).exit_code == 0
    result = _cli("canon", "audit", "--store", str(store), "--work", "lanterns", "--method", "in-canon",
                  "--character", "Wren", "--embedder", fake_embedder, "--json")
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["strict_leaks"] > 0
    # The stored profile is judged like any text (a profile is a claim, not knowledge) ...
    stored = [f for f in data["findings"] if f["surface"] == "timepoint"]
    assert stored and stored[0]["at"] == "1-3"
    assert "stormwren" in stored[0]["items"]["names_not_in_use"]
    # ... and the scoped builder never served the name.
    assert not [f for f in data["findings"] if f["surface"] in ("persona", "prompt", "card", "models")]
    assert "leak" in " ".join(result.stderr.split())
