"""``incanon rolerag eval`` with the shared run options: dry run and budget."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from incanon.bench.rolerag.profile import MAX_NOTES
from incanon.cli.main import app
from incanon.runs import RunStore

runner = CliRunner()
PRICES = {"scripted:*": {"input_per_1m": 1000, "output_per_1m": 1000}}


@pytest.fixture(scope="module")
def files(graph_store, tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("rolerag-options")
    res = runner.invoke(app, ["rolerag", "questions", "--store", str(graph_store.path), "--out", str(root / "q.jsonl"),
                              "--characters", "Wren,Jory", "--per-kind", "2", "--json"])
    assert res.exit_code == 0, res.output
    (root / "agent.json").write_text(json.dumps({"rules": [], "default": "I keep the lamps and know nothing of that."}))
    (root / "judge.json").write_text(json.dumps({"rules": [{"match": "keeps to the limits", "response": "Analysis: ok\nRating: 1"}],
                                                 "default": "Analysis: fine\nRating: 6"}))
    (root / "prices.json").write_text(json.dumps(PRICES))
    return root


def _eval(graph_store, root: Path, runs: Path, *extra: str) -> dict:
    res = runner.invoke(app, ["rolerag", "eval", "--store", str(graph_store.path), "--questions", str(root / "q.jsonl"),
                              "--model", f"scripted:{root / 'agent.json'}", "--judge", f"scripted:{root / 'judge.json'}",
                              "--runs", str(runs), "--no-cache", "--json", *extra])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_dry_run_counts_method_and_judge_calls_and_writes_nothing(graph_store, files, tmp_path):
    runs = tmp_path / "runs.sqlite"
    dry = _eval(graph_store, files, runs, "--method", "vanilla,profile", "--dry-run",
                "--prices", str(files / "prices.json"))
    assert not runs.exists()
    estimate = dry["estimate"]
    n = estimate["items"]
    rows = {r["label"]: r for r in estimate["rows"]}
    assert n == 12 and rows["agent: vanilla"]["calls"] == n and rows["agent: profile"]["calls"] == n
    # Each method's run judges its own answers: the judges run once per question per method.
    assert [rows[f"judge: {j}"]["calls"] for j in ("KE", "KH", "UQJ")] == [2 * n, 2 * n, 2 * n]
    assert "× 2 runs (one per method)" in rows["judge: KE"]["note"]
    assert rows["agent: profile building"]["calls_max"] == 2 * (MAX_NOTES + 1)  # two characters
    assert all(r["source"] == "declared" for r in estimate["rows"]) and estimate["cost"] > 0

    done = _eval(graph_store, files, runs, "--method", "vanilla,profile")["runs"]
    # vanilla: one answer and three verdicts per question, exactly as estimated.
    assert done[0]["usage"]["calls"] == rows["agent: vanilla"]["calls"] + 3 * n
    built = done[1]["usage"]["calls"] - rows["agent: profile"]["calls"] - 3 * n
    assert 0 < built <= rows["agent: profile building"]["calls_max"]


def test_max_cost_stops_and_a_higher_budget_finishes(graph_store, files, tmp_path):
    runs = tmp_path / "runs.sqlite"
    extra = ["--method", "vanilla", "--prices", str(files / "prices.json"), "--concurrency", "1"]
    first = _eval(graph_store, files, runs, *extra, "--max-cost", "1")["runs"][0]
    assert first["status"] == "stopped-budget" and 0 < first["ran"] < 12
    second = _eval(graph_store, files, runs, *extra, "--max-cost", "1000")["runs"][0]
    assert (second["run_id"], second["status"]) == (first["run_id"], "finished")
    assert (second["skipped"], second["ran"]) == (first["ran"], 12 - first["ran"])
    assert RunStore(runs).get_run(first["run_id"]).status == "finished"


def test_workers_rebuild_the_task_from_picklable_specs(graph_store, files, tmp_path):
    from incanon.testing.pickling_executor import PicklingExecutor, use_pickling_executor

    built = PicklingExecutor.built
    shipped = _eval(graph_store, files, tmp_path / "p.sqlite", "--method", "vanilla",
                    "--executor", use_pickling_executor())["runs"][0]
    local = _eval(graph_store, files, tmp_path / "l.sqlite", "--method", "vanilla")["runs"][0]
    assert PicklingExecutor.built == built + 1
    assert (shipped["run_id"], shipped["ok"], shipped["usage"]["calls"]) == (local["run_id"], 12, local["usage"]["calls"])
    scores = [{s.item_id: s.scores for s in RunStore(p).samples(r)} for p, r in
              ((tmp_path / "p.sqlite", shipped["run_id"]), (tmp_path / "l.sqlite", local["run_id"]))]
    assert scores[0] == scores[1]


@pytest.mark.slow
def test_ray_workers_give_the_local_results(graph_store, files, tmp_path, ray_session):
    """On a real local Ray instance, graph retrieval included: workers open the graph store from
    its path and load the embedder themselves; same samples as the local run."""
    remote = _eval(graph_store, files, tmp_path / "ray.sqlite", "--method", "rolerag-cutoff",
                   "--executor", "ray")["runs"][0]
    local = _eval(graph_store, files, tmp_path / "local.sqlite", "--method", "rolerag-cutoff")["runs"][0]
    assert (remote["run_id"], remote["ok"], remote["usage"]["calls"]) == (local["run_id"], 12, local["usage"]["calls"])
    scores = [{s.item_id: (s.scores, (s.outputs or {}).get("answer")) for s in RunStore(p).samples(r)} for p, r in
              ((tmp_path / "ray.sqlite", remote["run_id"]), (tmp_path / "local.sqlite", local["run_id"]))]
    assert scores[0] == scores[1]
