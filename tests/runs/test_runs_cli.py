"""``incanon runs list / show / export``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from incanon.cli.main import app
from incanon.errors import InputError, NotFoundError
from incanon.models.types import Usage
from incanon.models.usage import record_usage
from incanon.runs import ItemOutcome, RunConfig, RunItem, RunStore, run
from incanon.testing.cli import run_cli
from runs_testutil import make_items

cli = CliRunner()


async def _task(item: RunItem) -> ItemOutcome:
    record_usage("m", Usage(calls=1, prompt_tokens=3))
    if item.input["x"] == 3:
        raise ValueError("cannot parse judge reply")
    return ItemOutcome(outputs={"reply": f"r{item.input['x']}"}, scores={"acc": item.input["x"] % 2})


@pytest.fixture
def filled(store_path: Path) -> tuple[Path, str]:
    with RunStore(store_path) as store:
        cfg = RunConfig(benchmark="timechara", models={"agent": "scripted"}, methods=["zero-shot"])
        result = run(make_items(6), _task, store=store, config=cfg, progress=False)
        run(make_items(2), _task, store=store, config=RunConfig(benchmark="sharp"), progress=False)
    return store_path, result.run_id


def test_list_json(filled):
    path, run_id = filled
    res = cli.invoke(app, ["runs", "list", "--runs", str(path), "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    row = {r["id"]: r for r in doc["runs"]}[run_id]
    assert (row["benchmark"], row["status"], row["done"], row["failed"], row["total"]) == ("timechara", "finished", 6, 1, 6)
    assert len(doc["runs"]) == 2


def test_list_table(filled):
    path, run_id = filled
    res = cli.invoke(app, ["runs", "list", "--runs", str(path)])
    assert res.exit_code == 0 and run_id in res.stdout and "6/1/6" in res.stdout


def test_list_without_any_store(tmp_path, monkeypatch):
    monkeypatch.setenv("INCANON_HOME", str(tmp_path / "home"))
    res = cli.invoke(app, ["runs", "list", "--json"])
    assert res.exit_code == 0 and json.loads(res.stdout) == {"runs": []}
    assert not (tmp_path / "home" / "runs.sqlite").exists()


def test_show_json_and_table(filled):
    path, run_id = filled
    res = cli.invoke(app, ["runs", "show", run_id[:12], "--runs", str(path), "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["run"]["id"] == run_id and doc["config"]["methods"] == ["zero-shot"]
    summary = doc["summary"]
    assert summary["errors"] == {"ValueError": 1}
    assert summary["usage"]["calls"] == 6
    assert summary["scores"][0]["name"] == "acc" and summary["scores"][0]["n"] == 5
    table = cli.invoke(app, ["runs", "show", run_id, "--runs", str(path)])
    assert table.exit_code == 0
    for text in ("zero-shot", "acc", "±", "ValueError", "calls"):
        assert text in table.stdout


def test_export_jsonl_stdout_and_file(filled, tmp_path):
    path, run_id = filled
    res = cli.invoke(app, ["runs", "export", run_id, "--jsonl", "--runs", str(path)])
    assert res.exit_code == 0
    rows = [json.loads(line) for line in res.stdout.splitlines()]
    assert len(rows) == 6 and {r["item_id"] for r in rows} == {f"i{k:04d}" for k in range(6)}
    assert {r["status"] for r in rows} == {"ok", "error"}
    target = tmp_path / "out" / "samples.jsonl"
    res = cli.invoke(app, ["runs", "export", run_id, "--jsonl", "--out", str(target), "--runs", str(path), "--status", "error"])
    assert res.exit_code == 0 and res.stdout == ""
    [only] = [json.loads(line) for line in target.read_text().splitlines()]
    assert only["error"] == "ValueError: cannot parse judge reply"
    assert not [p for p in target.parent.iterdir() if p.name.endswith(".tmp")]
    res = cli.invoke(app, ["runs", "export", run_id, "--out", str(target), "--runs", str(path), "--json"])
    assert res.exit_code == 0 and json.loads(res.stdout) == {"run": run_id, "out": str(target), "format": "jsonl",
                                                              "status": None, "samples": 6}
    res = cli.invoke(app, ["runs", "export", run_id, "--runs", str(path), "--json"])
    assert res.exit_code != 0 and "give --out FILE" in str(res.exception)


def test_unknown_and_ambiguous_runs(filled):
    path, run_id = filled
    res = cli.invoke(app, ["runs", "show", "nosuchrun", "--runs", str(path)])
    assert isinstance(res.exception, NotFoundError) and run_id in str(res.exception)
    with RunStore(path) as store:
        store.create_or_resume(RunConfig(benchmark="timechara", seeds=[5]))
    res = cli.invoke(app, ["runs", "show", "timechara", "--runs", str(path)])
    assert isinstance(res.exception, InputError) and "ambiguous" in str(res.exception)
    res = cli.invoke(app, ["runs", "show", "x", "--runs", str(path.parent / "missing.sqlite")])
    assert isinstance(res.exception, NotFoundError)


def test_unknown_run_exits_2_with_one_line(filled):
    path, run_id = filled
    proc = run_cli(["runs", "show", "nosuchrun", "--runs", str(path)])
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "known runs" in lines[0] and run_id in lines[0]


def test_export_csv_and_parquet_are_flat_rows(filled, tmp_path):
    import csv

    import pyarrow.parquet as pq

    path, run_id = filled
    res = cli.invoke(app, ["runs", "export", run_id, "--format", "csv", "--runs", str(path)])
    assert res.exit_code == 0
    rows = list(csv.DictReader(res.stdout.splitlines()))
    assert len(rows) == 6 and {"item_id", "status", "usage.prompt_tokens", "scores.acc", "input.x", "outputs.reply"} <= set(rows[0])
    failed = next(r for r in rows if r["status"] == "error")
    assert failed["error"] == "ValueError: cannot parse judge reply" and failed["scores.acc"] == ""
    target = tmp_path / "samples.parquet"
    res = cli.invoke(app, ["runs", "export", run_id, "--format", "parquet", "--out", str(target), "--runs", str(path)])
    assert res.exit_code == 0
    table = pq.read_table(target)
    assert table.num_rows == 6 and sorted(table.column("input.x").to_pylist()) == list(range(6))
    bad = cli.invoke(app, ["runs", "export", run_id, "--format", "parquet", "--runs", str(path)])
    assert bad.exit_code != 0


def test_exports_say_benchmark_model_and_method(filled, tmp_path):
    import csv

    import pyarrow.parquet as pq

    path, run_id = filled
    want = {"benchmark": "timechara", "model": "scripted", "method": "zero-shot"}
    res = cli.invoke(app, ["runs", "export", run_id, "--format", "csv", "--runs", str(path)])
    assert res.exit_code == 0
    rows = list(csv.DictReader(res.stdout.splitlines()))
    assert list(rows[0])[:3] == ["benchmark", "model", "method"]
    assert all({k: r[k] for k in want} == want for r in rows)
    res = cli.invoke(app, ["runs", "export", run_id, "--format", "jsonl", "--runs", str(path)])
    lines = [json.loads(line) for line in res.stdout.splitlines()]
    assert all({k: r[k] for k in want} == want for r in lines)
    target = tmp_path / "samples.parquet"
    assert cli.invoke(app, ["runs", "export", run_id, "--format", "parquet", "--out", str(target),
                            "--runs", str(path)]).exit_code == 0
    table = pq.read_table(target)
    assert set(table.column("benchmark").to_pylist()) == {"timechara"}
    assert set(table.column("method").to_pylist()) == {"zero-shot"}
