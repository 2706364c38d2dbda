"""``incanon timechara eval`` with the shared run options: dry run, budget, shards, bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from incanon.cli.main import app
from incanon.runs import RunStore
from timechara_helpers import published_rows

AGENT = {"rules": [], "default": "I have no idea what you mean."}
JUDGE = {"rules": [
    {"match": "captures a character's personality", "response": "Fits.\nScore: 5"},
    {"match": "Classify the main error", "response": "It reveals the future.\nType: temporal"},
    {"match": "Future:", "response": "It leaks the future.\nScore: 0"},
], "default": "Consistent.\nScore: 1"}
PRICES = {"scripted:*": {"input_per_1m": 1000, "output_per_1m": 1000}}
N_ITEMS = 12

cli = CliRunner()


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> Path:
    """12 published rows (every data type), scripted agent and judge, a price table."""
    root = tmp_path_factory.mktemp("tc-options")
    base = published_rows()
    rows = []
    for k in range(N_ITEMS):
        row = dict(base[k % len(base)])
        row["question"] = row["question"].rstrip("?") + f" (#{k})?"
        rows.append(row)
    (root / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    personalities = {"Harry Potter": "Brave.", "Hermione Granger": "Bookish.", "Ronald Weasley": "Loyal."}
    for name, data in (("agent", AGENT), ("judge", JUDGE), ("prices", PRICES), ("personalities", personalities)):
        (root / f"{name}.json").write_text(json.dumps(data))
    return root


def _eval(root: Path, runs: Path, *extra: str) -> dict:
    res = cli.invoke(app, ["timechara", "eval", "--dataset", str(root / "data.jsonl"), "--personalities", str(root / "personalities.json"),
                           "--model", f"scripted:{root / 'agent.json'}", "--judge", f"scripted:{root / 'judge.json'}",
                           "--runs", str(runs), "--no-cache", "--json", *extra])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_dry_run_estimates_the_calls_the_run_makes_and_writes_nothing(files, tmp_path):
    runs = tmp_path / "runs.sqlite"
    dry = _eval(files, runs, "--dry-run", "--prices", str(files / "prices.json"), "--hallucination-types")
    assert not runs.exists()  # no run store, no run
    estimate = dry["estimate"]
    rows = {r["label"]: r for r in estimate["rows"]}
    assert dry["dry_run"] is True and estimate["items"] == N_ITEMS and estimate["samples"] == N_ITEMS
    spatial = sum(1 for k in range(N_ITEMS) if published_rows()[k % 5]["spatial_label"] != "-")
    assert rows["agent: zero-shot"]["calls"] == N_ITEMS
    assert rows["judge: spatiotemporal"]["calls"] == N_ITEMS + spatial
    assert rows["judge: personality"]["calls"] == N_ITEMS
    assert rows["judge: hallucination type"]["calls"] == N_ITEMS / 2  # assumed share, stated in its note
    assert "assumed 50%" in rows["judge: hallucination type"]["note"]
    assert estimate["cost"] > 0  # priced by the --prices table
    # Under the paper protocol (the default) no hallucination-type call is made unless asked.
    plain = {r["label"] for r in _eval(files, runs, "--dry-run")["estimate"]["rows"]}
    assert "judge: hallucination type" not in plain

    done = _eval(files, runs, "--hallucination-types")
    store = RunStore(runs)
    samples = list(store.samples(done["runs"][0]["run_id"]))
    classified = sum(1 for s in samples if s.scores["spatiotemporal"] == 0)
    fixed = estimate["calls"] - rows["judge: hallucination type"]["calls"]
    # Every call but the conditional classification is predicted exactly.
    assert done["runs"][0]["usage"]["calls"] == fixed + classified


def test_dry_run_table_and_unknown_method(files, tmp_path):
    res = cli.invoke(app, ["timechara", "eval", "--dataset", str(files / "data.jsonl"), "--personalities", str(files / "personalities.json"), "--model", "scripted:x",
                           "--judge", "scripted:y", "--runs", str(tmp_path / "r.sqlite"), "--dry-run",
                           "--method", "zero-shot,self-refine", "--limit", "5"])
    assert res.exit_code == 0, res.output
    assert "agent: self-refine" in res.stdout and "judge: personality" in res.stdout
    assert "5 items, 5 samples to run" in res.output
    doc = json.loads(cli.invoke(app, ["timechara", "eval", "--dataset", str(files / "data.jsonl"), "--personalities", str(files / "personalities.json"), "--model", "scripted:x",
                                      "--judge", "scripted:y", "--dry-run", "--json", "--method", "zero-shot,self-refine",
                                      "--limit", "5"]).stdout)
    rows = {r["label"]: r for r in doc["estimate"]["rows"]}
    # Each method's run judges its own answers: personality once per item per method.
    assert rows["judge: personality"]["calls"] == 10 and "× 2 runs" in rows["judge: personality"]["note"]
    assert (rows["agent: self-refine"]["calls_min"], rows["agent: self-refine"]["calls_max"]) == (10, 35)
    bad = cli.invoke(app, ["timechara", "eval", "--dataset", str(files / "data.jsonl"), "--personalities", str(files / "personalities.json"), "--model", "scripted:x",
                           "--judge", "scripted:y", "--dry-run", "--method", "zero-shot,no-such-method"])
    assert bad.exit_code != 0 and "no-such-method" in str(bad.exception)


def test_max_cost_stops_resumably_and_a_higher_budget_finishes(files, tmp_path):
    runs = tmp_path / "runs.sqlite"
    prices = ["--prices", str(files / "prices.json"), "--concurrency", "1"]
    first = _eval(files, runs, *prices, "--max-cost", "1.0")["runs"][0]
    assert first["status"] == "stopped-budget"
    assert 1 <= first["ran"] < N_ITEMS and first["usage"]["cost"] >= 1.0
    second = _eval(files, runs, *prices, "--max-cost", "100")["runs"][0]
    assert second["run_id"] == first["run_id"] and second["resumed"]
    assert second["status"] == "finished"
    assert (second["skipped"], second["ran"]) == (first["ran"], N_ITEMS - first["ran"])
    info = RunStore(runs).get_run(first["run_id"])
    assert info.status == "finished"
    assert len(list(RunStore(runs).samples(first["run_id"], status="ok"))) == N_ITEMS


def _by_item(path: Path, run_id: str) -> dict[str, dict]:
    return {s.item_id: s.scores for s in RunStore(path).samples(run_id)}


def test_shards_merge_into_the_unsharded_run(files, tmp_path):
    whole = _eval(files, tmp_path / "whole.sqlite")["runs"][0]
    one = _eval(files, tmp_path / "s1.sqlite", "--shard", "1/2")
    two = _eval(files, tmp_path / "s2.sqlite", "--shard", "2/2")
    ids = {one["runs"][0]["run_id"], two["runs"][0]["run_id"], whole["run_id"]}
    assert len(ids) == 3 and one["shard"] == "1/2"  # each shard is its own run
    s1 = _by_item(tmp_path / "s1.sqlite", one["runs"][0]["run_id"])
    s2 = _by_item(tmp_path / "s2.sqlite", two["runs"][0]["run_id"])
    assert s1 and s2 and not set(s1) & set(s2)
    merged = cli.invoke(app, ["runs", "merge", str(tmp_path / "m.sqlite"), str(tmp_path / "s1.sqlite"),
                              str(tmp_path / "s2.sqlite"), "--json"])
    assert merged.exit_code == 0, merged.output
    report = json.loads(merged.stdout)["runs"][0]
    assert (report["run_id"], report["samples"], report["missing_shards"]) == (whole["run_id"], N_ITEMS, [])
    assert _by_item(tmp_path / "m.sqlite", whole["run_id"]) == _by_item(tmp_path / "whole.sqlite", whole["run_id"])
    # The merged store is the unsharded run: running the command without --shard does nothing more.
    again = _eval(files, tmp_path / "m.sqlite")["runs"][0]
    assert (again["run_id"], again["ran"], again["skipped"]) == (whole["run_id"], 0, N_ITEMS)


@pytest.mark.parametrize(("extra", "words"), [
    (["--shard", "3/2"], ["--shard 3/2", "1 to 2"]),
    (["--shard", "half"], ["--shard", "i/n"]),
    (["--address", "127.0.0.1:6379"], ["--address", "--executor ray"]),
    (["--executor", "spark"], ["--executor", "local, ray"]),
    (["--prices", "BAD"], ["--prices", "invalid JSON", "input_per_1m"]),
])
def test_bad_run_options_are_one_line_errors_and_write_nothing(files, tmp_path, extra, words):
    (tmp_path / "bad.json").write_text("{not json")
    extra = [str(tmp_path / "bad.json") if e == "BAD" else e for e in extra]
    env = dict(os.environ, INCANON_HOME=str(tmp_path / "home"))
    # A fresh process: the error lists the executors registered there (a test here registers more).
    res = subprocess.run([sys.executable, "-m", "incanon", "timechara", "eval", "--dataset", str(files / "data.jsonl"),
                          "--personalities", str(files / "personalities.json"),
                          "--model", f"scripted:{files / 'agent.json'}", "--judge", f"scripted:{files / 'judge.json'}",
                          "--runs", str(tmp_path / "runs.sqlite"), *extra],
                         capture_output=True, text=True, env=env, timeout=120)
    assert res.returncode == 2, res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), res.stderr
    assert all(w in lines[0] for w in words), lines[0]
    assert not (tmp_path / "runs.sqlite").exists() and not (tmp_path / "home").exists()


@pytest.mark.slow
def test_ray_executor_gives_the_local_results(files, tmp_path, ray_session):
    """Ray workers rebuild the task from spec strings (models cannot be pickled): same samples."""
    remote = _eval(files, tmp_path / "ray.sqlite", "--executor", "ray", "--limit", "6")["runs"][0]
    local = _eval(files, tmp_path / "local.sqlite", "--limit", "6")["runs"][0]
    assert remote["run_id"] == local["run_id"]  # where samples ran is not part of the run
    assert (remote["status"], remote["ok"]) == ("finished", 6)
    assert remote["usage"]["calls"] == local["usage"]["calls"]
    assert _by_item(tmp_path / "ray.sqlite", remote["run_id"]) == _by_item(tmp_path / "local.sqlite", local["run_id"])
    templates = RunStore(tmp_path / "ray.sqlite").get_run(remote["run_id"]).config.templates
    here = RunStore(tmp_path / "local.sqlite").get_run(local["run_id"]).config.templates
    # The workers' templates reach the run's record, the same ones as a local run renders.
    assert {"judge_spatiotemporal", "judge_personality"} <= set(templates) and templates == here


def test_workers_rebuild_the_task_from_picklable_specs(files, tmp_path):
    """What Ray would receive: a pickled per-worker factory that rebuilds models and judges."""
    from incanon.testing.pickling_executor import PicklingExecutor, use_pickling_executor

    built = PicklingExecutor.built
    shipped = _eval(files, tmp_path / "p.sqlite", "--executor", use_pickling_executor(), "--limit", "5",
                    "--method", "zero-shot,narrative-experts")["runs"]
    local = _eval(files, tmp_path / "l.sqlite", "--limit", "5", "--method", "zero-shot,narrative-experts")["runs"]
    assert PicklingExecutor.built == built + 2  # one rebuilt task per method's run
    for a, b in zip(shipped, local):
        assert (a["run_id"], a["ok"], a["usage"]["calls"]) == (b["run_id"], 5, b["usage"]["calls"])
        assert _by_item(tmp_path / "p.sqlite", a["run_id"]) == _by_item(tmp_path / "l.sqlite", b["run_id"])
