"""``incanon dialsim run`` with the shared run options: dry run, budget, shards of repetitions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from incanon.cli.main import app
from incanon.errors import ConfigError
from incanon.runs import RunStore

runner = CliRunner()
SESSIONS = 10  # sessions of the sample dialogue the simulation replays
PRICES = {"scripted:*": {"input_per_1m": 100, "output_per_1m": 100}}


def _cli(*args: str) -> dict:
    res = runner.invoke(app, ["dialsim", *args])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("dialsim-options")
    _cli("ingest", "--sample", "--store", str(root / "canon"), "--json")
    _cli("questions", "--store", str(root / "canon"), "--out", str(root / "q.jsonl"), "--json")
    (root / "model.json").write_text(json.dumps({"rules": [{"match": "Jory", "response": "(A)"}], "default": "(E)"}))
    (root / "prices.json").write_text(json.dumps(PRICES))
    return root


def _run(root: Path, runs: Path, *extra: str) -> dict:
    return _cli("run", "--store", str(root / "canon"), "--questions", str(root / "q.jsonl"),
                "--model", f"scripted:{root / 'model.json'}", "--memory", "bm25-session", "--time-limit", "0",
                "--repetitions", "2", "--fast", "--no-cache", "--runs", str(runs), "--json", *extra)


def _samples(path: Path, run_id: str) -> dict[tuple[str, int], tuple]:
    """(session, repetition) → what was asked and how it was scored (timings left out)."""
    return {(s.item_id, s.epoch): (s.input_hash, json.dumps((s.outputs or {}).get("question") and {
        k: v for k, v in s.outputs["question"].items() if not k.endswith("_s")}, sort_keys=True),
        (s.scores or {}).get("correct")) for s in RunStore(path).samples(run_id)}


def test_dry_run_counts_the_answer_calls_exactly_and_writes_nothing(files, tmp_path):
    runs = tmp_path / "runs.sqlite"
    dry = _run(files, runs, "--dry-run", "--prices", str(files / "prices.json"))
    assert not runs.exists()
    estimate = dry["estimate"]
    rows = {r["label"]: r for r in estimate["rows"]}
    assert estimate["samples"] == 2 * SESSIONS
    assert rows["agent: warm-up (bm25-session @ 0s)"]["calls"] == 2
    answers = rows["agent: answers (bm25-session @ 0s)"]["calls"]
    assert estimate["cost"] > 0

    done = _run(files, runs)["runs"][0]
    asked = sum(1 for s in RunStore(runs).samples(done["run_id"]) if s.scores)
    # The plan is computed without a model: every answer call is predicted, none invented.
    assert answers == asked == done["usage"]["calls"] > 0


def test_max_cost_stops_and_a_higher_budget_finishes(files, tmp_path):
    runs = tmp_path / "runs.sqlite"
    prices = ["--prices", str(files / "prices.json")]
    first = _run(files, runs, *prices, "--max-cost", "0.05")["runs"][0]
    assert first["status"] == "stopped-budget" and first["usage"]["cost"] >= 0.05
    assert first["simulated"] == [] and "higher --max-cost" in first["notes"][0]
    stored = RunStore(runs).get_run(first["run_id"])
    assert stored.status == "stopped-budget" and 0 < len(list(RunStore(runs).samples(first["run_id"]))) < 2 * SESSIONS
    second = _run(files, runs, *prices, "--max-cost", "100")["runs"][0]
    assert (second["run_id"], second["status"]) == (first["run_id"], "finished")
    assert sorted(second["simulated"] + second["skipped"]) == [0, 1]
    assert len(list(RunStore(runs).samples(first["run_id"], status="ok"))) == 2 * SESSIONS
    assert RunStore(runs).get_run(first["run_id"]).status == "finished"


def test_shards_of_repetitions_merge_into_the_unsharded_run(files, tmp_path):
    whole = _run(files, tmp_path / "whole.sqlite")["runs"][0]
    one = _run(files, tmp_path / "s1.sqlite", "--shard", "1/2")["runs"][0]
    two = _run(files, tmp_path / "s2.sqlite", "--shard", "2/2")["runs"][0]
    assert (one["simulated"], two["simulated"]) == ([0], [1])  # repetition e goes to shard (e mod n) + 1
    assert len({one["run_id"], two["run_id"], whole["run_id"]}) == 3
    res = runner.invoke(app, ["runs", "merge", str(tmp_path / "m.sqlite"), str(tmp_path / "s1.sqlite"),
                              str(tmp_path / "s2.sqlite"), "--json"])
    assert res.exit_code == 0, res.output
    merged = json.loads(res.stdout)["runs"][0]
    assert (merged["run_id"], merged["samples"], merged["missing_shards"]) == (whole["run_id"], 2 * SESSIONS, [])
    joined = _samples(tmp_path / "m.sqlite", whole["run_id"])
    assert joined == _samples(tmp_path / "whole.sqlite", whole["run_id"])
    assert sum(1 for _, question, _ in joined.values() if question != "null") >= 2  # real questions compared
    again = _run(files, tmp_path / "m.sqlite")["runs"][0]
    assert (again["run_id"], again["simulated"], again["skipped"]) == (whole["run_id"], [], [0, 1])


def test_a_shard_without_repetitions_is_refused_before_anything_is_written(files, tmp_path):
    res = runner.invoke(app, ["dialsim", "run", "--store", str(files / "canon"), "--questions", str(files / "q.jsonl"),
                              "--model", f"scripted:{files / 'model.json'}", "--repetitions", "2", "--fast",
                              "--runs", str(tmp_path / "runs.sqlite"), "--shard", "3/4"])
    assert isinstance(res.exception, ConfigError)
    assert "--shard 3/4" in str(res.exception) and "--repetitions 2" in str(res.exception)
    assert not (tmp_path / "runs.sqlite").exists()


def test_workers_simulate_whole_repetitions_from_picklable_specs(files, tmp_path, ray_session):
    """What Ray would receive: a pickled factory; each repetition is simulated whole by a worker."""
    from incanon.testing.pickling_executor import PicklingExecutor, use_pickling_executor

    built = PicklingExecutor.built
    shipped = _run(files, tmp_path / "p.sqlite", "--executor", use_pickling_executor())["runs"][0]
    local = _run(files, tmp_path / "l.sqlite")["runs"][0]
    assert PicklingExecutor.built == built + 1
    assert (shipped["run_id"], shipped["simulated"], shipped["usage"]["calls"]) == (local["run_id"], [0, 1], local["usage"]["calls"])
    assert _samples(tmp_path / "p.sqlite", shipped["run_id"]) == _samples(tmp_path / "l.sqlite", local["run_id"])


@pytest.mark.slow
def test_ray_workers_simulate_whole_repetitions(files, tmp_path, ray_session):
    """On a real local Ray instance: each repetition simulated whole on a worker, the same samples
    and usage as the local run, stored by the driver under the same run id. On the suite's shared
    Ray instance (the ``ray`` group): a guide's own Ray head must not be joined by mistake."""
    remote = _run(files, tmp_path / "ray.sqlite", "--executor", "ray")["runs"][0]
    local = _run(files, tmp_path / "local.sqlite")["runs"][0]
    assert (remote["run_id"], remote["simulated"]) == (local["run_id"], [0, 1])
    assert remote["usage"]["calls"] == local["usage"]["calls"] > 0
    assert _samples(tmp_path / "ray.sqlite", remote["run_id"]) == _samples(tmp_path / "local.sqlite", local["run_id"])
