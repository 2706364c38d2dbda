"""``merge_stores`` / ``incanon runs merge``: shards back into one run, duplicates, atomicity."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from incanon.cli.main import app
from incanon.errors import InputError, NotFoundError
from incanon.models.types import Usage
from incanon.models.usage import record_usage
from incanon.runs import ItemOutcome, RunConfig, RunItem, RunStore, Shard, merge_stores, run
from incanon.testing.cli import run_cli
from runs_testutil import make_items

cli = CliRunner()


def _task(item: RunItem) -> ItemOutcome:
    record_usage("m", Usage(calls=1, prompt_tokens=2, cost=0.5))
    return ItemOutcome(outputs={"y": item.input["x"] * 3}, scores={"s": item.input["x"] % 2})


def _failing_odd(item: RunItem) -> ItemOutcome:
    if item.input["x"] % 2:
        raise RuntimeError("odd")
    return _task(item)


def _shard_stores(tmp_path: Path, config: RunConfig, items, count: int, task=_task) -> list[Path]:
    paths = []
    for i in range(1, count + 1):
        path = tmp_path / f"shard{i}.sqlite"
        with RunStore(path) as store:
            run(items, task, store=store, config=config, shard=f"{i}/{count}", progress=False)
        paths.append(path)
    return paths


def _rows(path: Path, run_id: str) -> dict[tuple[str, int], tuple]:
    with RunStore(path, create=False) as store:
        return {(s.item_id, s.epoch): (s.input_hash, s.outputs, s.scores, s.status)
                for s in store.samples(run_id)}


def test_shards_merge_into_the_unsharded_run(tmp_path, config):
    items = make_items(40)
    with RunStore(tmp_path / "whole.sqlite") as whole:
        reference = run(items, _task, store=whole, config=config, progress=False)
    shards = _shard_stores(tmp_path, config, items, 4)
    report = merge_stores(tmp_path / "merged.sqlite", shards)
    assert [r.run_id for r in report.runs] == [reference.run_id]
    merged = report.runs[0]
    assert merged.samples == 40 and merged.duplicates == [] and merged.missing_shards == []
    assert merged.shards == ["1/4", "2/4", "3/4", "4/4"] and merged.status == "finished"
    assert _rows(tmp_path / "merged.sqlite", reference.run_id) == _rows(tmp_path / "whole.sqlite", reference.run_id)
    with RunStore(tmp_path / "merged.sqlite", create=False) as store:
        info = store.get_run(reference.run_id)
        assert info.status == "finished" and info.total == 40 and info.ok == 40
        assert "shard" not in info.config.params
        assert info.totals["spent"]["cost"] == pytest.approx(20.0)
        assert info.totals["sessions"] == 4 and len(info.totals["merged_from"]) == 4
        # The merged run is the run the unsharded command resumes: nothing left to do.
        again = run(items, _task, store=store, config=config, progress=False)
        assert again.run_id == reference.run_id and again.ran == 0 and again.skipped == 40


def test_missing_shard_is_reported_and_filled_by_an_unsharded_resume(tmp_path, config):
    items = make_items(30)
    shards = _shard_stores(tmp_path, config, items, 3)
    report = merge_stores(tmp_path / "m.sqlite", shards[:2])
    merged = report.runs[0]
    assert merged.missing_shards == ["3/3"] and merged.status == "interrupted"
    assert "3/3" in merged.notes[0]
    in_third = [i for i in items if Shard(3, 3).contains(i.id)]
    assert merged.samples == 30 - len(in_third) > 0 and in_third
    with RunStore(tmp_path / "m.sqlite", create=False) as store:
        result = run(items, _task, store=store, config=config, progress=False)
        assert result.run_id == config.run_id and result.ran == len(in_third)
        assert store.get_run(result.run_id).ok == 30 and store.get_run(result.run_id).status == "finished"


def test_identical_duplicates_keep_one_and_are_reported(tmp_path, config):
    items = make_items(12)
    shards = _shard_stores(tmp_path, config, items, 2)
    # The same run done whole on a third machine: every item is a duplicate with the same input.
    with RunStore(tmp_path / "whole.sqlite") as store:
        run(items, _task, store=store, config=config, progress=False)
    report = merge_stores(tmp_path / "m.sqlite", [*shards, tmp_path / "whole.sqlite"])
    merged = report.runs[0]
    assert merged.samples == 12 and len(merged.duplicates) == 12
    assert all(d.dropped.startswith("whole.sqlite:") for d in merged.duplicates)
    assert len(_rows(tmp_path / "m.sqlite", merged.run_id)) == 12


def test_an_ok_duplicate_wins_over_a_failed_one(tmp_path, config):
    items = make_items(10)
    with RunStore(tmp_path / "a.sqlite") as a:
        run(items, _failing_odd, store=a, config=config, progress=False)
    with RunStore(tmp_path / "b.sqlite") as b:
        run(items, _task, store=b, config=config, progress=False)
    report = merge_stores(tmp_path / "m.sqlite", [tmp_path / "a.sqlite", tmp_path / "b.sqlite"])
    rows = _rows(tmp_path / "m.sqlite", report.runs[0].run_id)
    assert {status for *_, status in rows.values()} == {"ok"}
    kept_b = {d.item_id for d in report.runs[0].duplicates if d.kept.startswith("b.sqlite")}
    assert kept_b == {i.id for i in items if i.input["x"] % 2}


def test_different_inputs_under_one_item_are_an_error_and_nothing_is_written(tmp_path, config):
    items = make_items(10)
    shards = _shard_stores(tmp_path, config, items, 2)
    changed = [RunItem(id=i.id, input={"x": i.input["x"] + (100 if i.id == "i0003" else 0)}) for i in items]
    with RunStore(tmp_path / "other.sqlite") as store:
        run(changed, _task, store=store, config=config, progress=False)
    # A new output store is not left behind ...
    out = tmp_path / "new.sqlite"
    with pytest.raises(InputError) as caught:
        merge_stores(out, [*shards, tmp_path / "other.sqlite"])
    message = str(caught.value)
    assert "'i0003'" in message and "other.sqlite" in message and "shard" in message
    assert not out.exists()
    # ... and an existing one is unchanged (its earlier merge intact).
    existing = tmp_path / "existing.sqlite"
    merge_stores(existing, shards)
    before = _dump(existing)
    with pytest.raises(InputError):
        merge_stores(existing, [tmp_path / "other.sqlite"])
    assert _dump(existing) == before


def _dump(path: Path) -> list:
    db = sqlite3.connect(path)
    try:
        return [db.execute("SELECT * FROM runs ORDER BY id").fetchall(),
                db.execute("SELECT * FROM samples ORDER BY run_id, item_id, epoch").fetchall()]
    finally:
        db.close()


def test_a_failure_while_writing_rolls_back_everything(tmp_path, config, monkeypatch):
    items = make_items(20)
    shards = _shard_stores(tmp_path, config, items, 2)
    other = RunConfig(benchmark="sharp")
    with RunStore(tmp_path / "s3.sqlite") as store:
        run(items, _task, store=store, config=other, progress=False)
    existing = tmp_path / "existing.sqlite"
    merge_stores(existing, [tmp_path / "s3.sqlite"])
    before = _dump(existing)

    calls = {"n": 0}
    real = RunStore.sample_rows

    def flaky(self, run_id):
        calls["n"] += 1
        # Called only to copy rows: the first copy is written, the second fails mid-transaction.
        if calls["n"] == 2:
            raise OSError("disk went away")
        yield from real(self, run_id)

    monkeypatch.setattr(RunStore, "sample_rows", flaky)
    with pytest.raises(OSError):
        merge_stores(existing, [*shards, tmp_path / "s3.sqlite"])
    monkeypatch.undo()
    assert calls["n"] == 2
    assert _dump(existing) == before


def test_merging_again_is_idempotent_and_takes_a_rerun_shard(tmp_path, config):
    items = make_items(16)
    shards = _shard_stores(tmp_path, config, items, 2, task=_failing_odd)
    out = tmp_path / "m.sqlite"
    first = merge_stores(out, shards).runs[0]
    assert first.status == "finished"
    with RunStore(out, create=False) as store:
        assert store.get_run(first.run_id).failed == 8
    # Shard 2 is re-run with the bug fixed, and merged again.
    with RunStore(shards[1]) as store:
        run(items, _task, store=store, config=config, shard="2/2", progress=False)
    second = merge_stores(out, shards).runs[0]
    odd_in_1 = sum(1 for i in items if i.input["x"] % 2 and Shard(1, 2).contains(i.id))
    with RunStore(out, create=False) as store:
        info = store.get_run(first.run_id)
        assert (info.ok, info.failed) == (16 - odd_in_1, odd_in_1)
        assert info.totals["sessions"] == 3  # shard 1 once, shard 2 twice: not added up again
    assert second.existing.startswith("m.sqlite:") and len(second.sources) == 2 and second.samples == 16
    assert second.duplicates == []  # the output's own copy is not a duplicate
    before = _dump(out)[1]
    assert merge_stores(out, shards).runs[0].samples == 16
    assert _dump(out)[1] == before  # merging the same stores again changes no sample


def test_run_selects_one_of_several_and_unknown_is_an_error(tmp_path, config):
    items = make_items(8)
    shards = _shard_stores(tmp_path, config, items, 2)
    other = RunConfig(benchmark="sharp", methods=["x"])
    with RunStore(shards[0]) as store:
        run(items, _task, store=store, config=other, progress=False)
    both = merge_stores(tmp_path / "all.sqlite", shards)
    assert sorted(r.run_id for r in both.runs) == sorted([config.run_id, other.run_id])
    with RunStore(shards[0]) as store:
        shard_run = next(i.id for i in store.runs() if i.benchmark == "demo")
    one = merge_stores(tmp_path / "one.sqlite", shards, run=shard_run[:14])
    assert [r.run_id for r in one.runs] == [config.run_id]
    with pytest.raises(NotFoundError, match="no run 'nope'"):
        merge_stores(tmp_path / "none.sqlite", shards, run="nope")
    with pytest.raises(InputError, match="both the output and a source"):
        merge_stores(shards[0], shards)


def test_cli_merge(tmp_path, config):
    items = make_items(10)
    shards = _shard_stores(tmp_path, config, items, 2)
    with RunStore(tmp_path / "dup.sqlite") as store:
        run(items[:3], _task, store=store, config=config, shard="1/1", progress=False)
    out = tmp_path / "m.sqlite"
    result = cli.invoke(app, ["runs", "merge", str(out), *map(str, shards), str(tmp_path / "dup.sqlite"), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["runs"][0]["run_id"] == config.run_id and data["runs"][0]["samples"] == 10
    assert len(data["runs"][0]["duplicates"]) == 3
    table = cli.invoke(app, ["runs", "merge", str(tmp_path / "m2.sqlite"), *map(str, shards)])
    assert table.exit_code == 0 and config.run_id in table.stdout and "1/2, 2/2" in table.stdout
    shown = cli.invoke(app, ["runs", "show", config.run_id, "--runs", str(out), "--json"])
    assert json.loads(shown.stdout)["summary"]["ok"] == 10


def test_cli_merge_conflict_is_a_one_line_error(tmp_path, config):
    items = make_items(6)
    shards = _shard_stores(tmp_path, config, items, 2)
    changed = [RunItem(id=i.id, input={"x": i.input["x"] + 1}) for i in items]
    with RunStore(tmp_path / "other.sqlite") as store:
        run(changed, _task, store=store, config=config, progress=False)
    done = run_cli(["runs", "merge", str(tmp_path / "m.sqlite"),
                   *map(str, shards), str(tmp_path / "other.sqlite")])
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("error: cannot merge run ") and "different inputs" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "m.sqlite").exists()
