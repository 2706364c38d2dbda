"""``incanon sharp eval`` with the shared run options: dry run and budget."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from incanon.bench.sharp import write_claims_jsonl
from incanon.cli.main import app
from incanon.runs import RunStore
from sharp_run_helpers import claims_2f_2c
from test_sharp_cli import AGENT, BACKBONE, DETECTOR

PRICES = {"scripted:*": {"input_per_1m": 1000, "output_per_1m": 1000}}
runner = CliRunner()


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("sharp-options")
    for name, data in (("agent", AGENT), ("detector", DETECTOR), ("backbone", BACKBONE), ("prices", PRICES)):
        (root / f"{name}.json").write_text(json.dumps(data))
    write_claims_jsonl(claims_2f_2c(), root / "claims.jsonl")
    return root


def _eval(root: Path, runs: Path, *extra: str, code: int = 0) -> dict:
    res = runner.invoke(app, ["sharp", "eval", "--claims", str(root / "claims.jsonl"),
                              "--model", f"scripted:{root / 'agent.json'}", "--detector", f"scripted:{root / 'detector.json'}",
                              "--backbone", f"scripted:{root / 'backbone.json'}", "--runs", str(runs), "--no-cache",
                              "--json", *extra])
    assert res.exit_code == code, res.output
    return json.loads(res.stdout)


def test_dry_run_predicts_every_call_but_repairs_and_writes_nothing(root, tmp_path):
    runs = tmp_path / "runs.sqlite"
    dry = _eval(root, runs, "--dry-run", "--prices", str(root / "prices.json"))
    assert not runs.exists()
    estimate = dry["estimate"]
    rows = {r["label"]: r for r in estimate["rows"]}
    claims = 4
    roles = estimate["items"] - claims  # one backbone item per claim, the rest are role items
    assert roles > 0 and roles % claims == 0
    assert rows["agent: zero-shot"]["calls"] == roles
    assert rows["backbone"]["calls"] == claims
    assert rows["detector: stance"]["calls"] == roles + claims
    assert rows["detector: stance"]["calls_max"] == 2 * (roles + claims)
    assert estimate["cost"] > 0

    done = _eval(root, runs)["runs"][0]
    repaired = sum(1 for s in RunStore(runs).samples(done["run_id"]) if (s.extra or {}).get("detector_repaired"))
    assert repaired > 0  # Ilse's hedge needs a repair turn: the one call the estimate cannot know
    assert done["usage"]["calls"] == estimate["calls"] + repaired


def test_max_cost_stops_and_a_higher_budget_finishes(root, tmp_path):
    runs = tmp_path / "runs.sqlite"
    extra = ["--prices", str(root / "prices.json"), "--concurrency", "1"]
    # The budget runs out on the backbone items (they come first): no role answer is judged yet,
    # so there is no report and the command says so with a non-zero exit; the runs are listed.
    stopped = _eval(root, runs, *extra, "--max-cost", "0.3", code=1)
    assert stopped["report"] is None and "no answer was judged" in stopped["error"]
    first = stopped["runs"][0]
    assert first["status"] == "stopped-budget" and first["usage"]["cost"] >= 0.3
    total = first["ran"]
    second = _eval(root, runs, *extra, "--max-cost", "1000")["runs"][0]
    assert (second["run_id"], second["status"], second["skipped"]) == (first["run_id"], "finished", total)
    assert RunStore(runs).get_run(first["run_id"]).status == "finished"
    assert len(list(RunStore(runs).samples(first["run_id"], status="ok"))) == total + second["ran"]


def test_workers_rebuild_the_task_from_picklable_specs(root, tmp_path):
    from incanon.testing.pickling_executor import PicklingExecutor, use_pickling_executor

    built = PicklingExecutor.built
    shipped = _eval(root, tmp_path / "p.sqlite", "--executor", use_pickling_executor())["runs"][0]
    local = _eval(root, tmp_path / "l.sqlite")["runs"][0]
    assert PicklingExecutor.built == built + 1
    assert (shipped["run_id"], shipped["ok"], shipped["usage"]["calls"]) == (local["run_id"], local["ok"], local["usage"]["calls"])
    scores = [{s.item_id: s.scores for s in RunStore(p).samples(r)} for p, r in
              ((tmp_path / "p.sqlite", shipped["run_id"]), (tmp_path / "l.sqlite", local["run_id"]))]
    assert scores[0] == scores[1] and len(scores[0]) == local["ok"]


def test_dry_run_without_a_store_writes_nothing_in_incanon_home(root, tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("INCANON_HOME", str(home))
    dry = _eval(root, tmp_path / "runs.sqlite", "--dry-run")
    assert dry["estimate"]["items"] > 0
    assert not (home / "canon").exists() and not (tmp_path / "runs.sqlite").exists()


@pytest.mark.slow
def test_ray_workers_give_the_local_results(root, tmp_path, ray_session):
    """On a real local Ray instance: workers rebuild agent, detector and backbone from specs."""
    remote = _eval(root, tmp_path / "ray.sqlite", "--executor", "ray")["runs"][0]
    local = _eval(root, tmp_path / "local.sqlite")["runs"][0]
    assert (remote["run_id"], remote["ok"], remote["usage"]["calls"]) == (local["run_id"], local["ok"], local["usage"]["calls"])
    scores = [{s.item_id: s.scores for s in RunStore(p).samples(r)} for p, r in
              ((tmp_path / "ray.sqlite", remote["run_id"]), (tmp_path / "local.sqlite", local["run_id"]))]
    assert scores[0] == scores[1] and len(scores[0]) == local["ok"] > 0
