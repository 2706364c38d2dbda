"""The identity check fails when a surface tells someone that two names are one person too early,
and when a store groups a second identity without dating it (the helper that merged "Edward Hyde"
into Henry Jekyll)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from incanon.audit import audit_work
from incanon.audit.identities import identity_check
from incanon.audit.run import audit_points
from incanon.canon import CanonStore, write_world_file
from incanon.canon.records import CharacterRecord
from incanon.cli.main import app

from tests.canon.secret_world import grouped_world, secret_world


def _store(tmp_path: Path, world) -> CanonStore:
    store = CanonStore.open(tmp_path / "canon")
    store.import_world(world)
    return store


def test_a_well_kept_secret_reads_zero(tmp_path: Path, words_embedder) -> None:
    store = _store(tmp_path, secret_world())
    report = asyncio.run(audit_work(store, "vane", methods=("in-canon",), embedder=words_embedder, canaries=True))
    assert report.identities == [] and report.strict_leaks() == 0 and report.canary_leaks() == 0


def test_a_grouping_the_store_does_not_date_fails_the_audit(tmp_path: Path, fake_embedder: str) -> None:
    path = write_world_file(grouped_world(), tmp_path / "grouped.json")
    runner = CliRunner()
    assert runner.invoke(app, ["canon", "import", str(path), "--store", str(tmp_path / "canon")]).exit_code == 0
    result = runner.invoke(app, ["canon", "audit", "--store", str(tmp_path / "canon"), "--method", "in-canon",
                                 "--embedder", fake_embedder, "--no-canaries", "--json"])
    assert result.exit_code == 1
    (found,) = json.loads(result.stdout)["identities"]
    assert found["kind"] == "undated" and found["names"] == ["Aurel Vane", "Silas Crane"]
    assert "'Silas Crane'" in result.stderr and '"secret": true' in result.stderr


def test_a_card_that_groups_the_secret_too_early_is_caught(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = _store(tmp_path, secret_world())
    points = audit_points(store, "vane")
    assert identity_check(store, "vane", points) == []
    # Plant the old card rule: every name of a person in one entry, whoever reads it.
    monkeypatch.setattr("incanon.canon.knows.CharacterKnowledge.hidden_identities", property(lambda self: {}))
    found = identity_check(store, "vane", points)
    assert {(f.surface, f.character, f.at) for f in found} >= {("card", "Matthias Ord", "1-2-1")}
    assert not any(f.at == "1-4-1" and f.character == "Matthias Ord" for f in found)  # he knows by then


def test_a_listing_that_names_the_secret_before_the_reveal_is_caught(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    store = _store(tmp_path, secret_world())
    points = audit_points(store, "vane")
    # Plant the old listing: every name in use, revealed or not.
    monkeypatch.setattr(CharacterRecord, "shown_names_at", CharacterRecord.names_at)
    found = [f for f in identity_check(store, "vane", points) if f.surface == "models"]
    # Only before the reveal (1-3-1), where a reader does not know it yet.
    assert [(f.character, f.at) for f in found] == [("Aurel Vane", "1-2-1")]


def _audit_json(tmp_path: Path, world, embedder: str, character: str = "Matthias Ord") -> tuple[int, dict]:
    path = write_world_file(world, tmp_path / "planted.json")
    runner = CliRunner()
    assert runner.invoke(app, ["canon", "import", str(path), "--store", str(tmp_path / "canon")]).exit_code == 0
    result = runner.invoke(app, ["canon", "audit", "--store", str(tmp_path / "canon"), "--method", "in-canon",
                                 "--character", character, "--embedder", embedder, "--json"])
    return result.exit_code, json.loads(result.stdout)


def test_the_jekyll_like_world_reads_zero_and_each_planted_leak_exits_1(tmp_path: Path, fake_embedder: str) -> None:
    code, data = _audit_json(tmp_path / "clean", secret_world(), fake_embedder)
    assert code == 0 and data["strict_leaks"] == 0 and data["canaries"]["leaks"] == 0
    # A sentence of the confession written into Ord's early profile: the reveal, in so many words.
    told = secret_world()
    told.characters[0].time_points[0].profile = "Ord keeps wills. Vane drinks the salts and becomes Crane."
    code, data = _audit_json(tmp_path / "told", told, fake_embedder)
    assert code == 1 and any(f["surface"] == "timepoint" and f["at"] == "1-2-1" for f in data["findings"])
    # A pointer to a later part, every word known: "in chapter four" of a one-book story.
    pointer = secret_world()
    pointer.characters[0].time_points[0].profile = "Ord keeps wills. In chapter four he learns who Crane is."
    code, data = _audit_json(tmp_path / "pointer", pointer, fake_embedder)
    assert code == 1
