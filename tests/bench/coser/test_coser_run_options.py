"""``incanon coser simulate / judge`` with the shared run options: dry run and budget."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from incanon.cli.main import app
from incanon.runs import RunStore
from test_cli_eval_coser import ACTOR, CASES, CRITIC, NSP

PRICES = {"scripted:*": {"input_per_1m": 1000, "output_per_1m": 1000}}
ROUNDS = 3  # below end_from_round (5): no scene can end early, so the call count is exact
runner = CliRunner()


@pytest.fixture
def root(tmp_path) -> Path:
    (tmp_path / "test.json").write_text(json.dumps(CASES))
    for name, data in (("actor", ACTOR), ("nsp", NSP), ("critic", CRITIC), ("prices", PRICES)):
        (tmp_path / f"{name}.json").write_text(json.dumps(data))
    return tmp_path


def _coser(*args: str) -> dict:
    res = runner.invoke(app, ["coser", *args])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def _simulate(root: Path, *extra: str) -> dict:
    return _coser("simulate", "--test", str(root / "test.json"), "--model", f"scripted:{root / 'actor.json'}",
                  "--nsp-model", f"scripted:{root / 'nsp.json'}", "--env-model", f"scripted:{root / 'actor.json'}",
                  "--max-rounds", str(ROUNDS), "--runs", str(root / "runs.sqlite"), "--no-cache", "--json", *extra)


def test_dry_runs_of_simulation_and_judging_match_the_runs(root):
    dry = _simulate(root, "--dry-run", "--prices", str(root / "prices.json"))
    assert not (root / "runs.sqlite").exists()
    estimate = dry["estimate"]
    rows = {r["label"]: r for r in estimate["rows"]}
    assert estimate["items"] == len(CASES)
    assert rows["actors"]["calls"] + rows["environment"]["calls"] == ROUNDS * len(CASES)
    assert rows["next-speaker prediction"]["calls"] == (ROUNDS - 1) * len(CASES)
    # Mr Bennet's case: 1 of 4 original turns is the environment's.
    assert rows["environment"]["calls"] == pytest.approx(ROUNDS * 0.25)
    assert estimate["cost"] > 0

    simulated = _simulate(root)["run"]
    assert simulated["usage"]["calls"] == estimate["calls"]

    judge_args = ["judge", simulated["run_id"], "--critic", f"scripted:{root / 'critic.json'}",
                  "--runs", str(root / "runs.sqlite"), "--no-cache", "--json"]
    judge_dry = _coser(*judge_args, "--dry-run")["estimate"]
    assert judge_dry["rows"][0]["calls"] == 4 * len(CASES) and judge_dry["rows"][0]["calls_max"] == 8 * len(CASES)
    assert [r.benchmark for r in RunStore(root / "runs.sqlite").runs()] == ["coser-gca"]  # no judged run yet
    judged = _coser(*judge_args)["run"]
    repaired = sum(len((s.extra or {}).get("repaired", [])) for s in RunStore(root / "runs.sqlite").samples(judged["run_id"]))
    assert repaired == len(CASES)  # Storyline Quality needs a repair turn in every case
    assert judged["usage"]["calls"] == judge_dry["calls"] + repaired


def test_max_cost_stops_the_simulation_and_a_higher_budget_finishes(root):
    extra = ["--prices", str(root / "prices.json"), "--concurrency", "1"]
    first = _simulate(root, *extra, "--max-cost", "0.01")["run"]
    assert (first["status"], first["ran"]) == ("stopped-budget", 1)
    second = _simulate(root, *extra, "--max-cost", "100")["run"]
    assert (second["run_id"], second["status"], second["skipped"], second["ran"]) == (first["run_id"], "finished", 1, 1)


def test_workers_rebuild_cast_and_critic_from_picklable_specs(root):
    from incanon.testing.pickling_executor import PicklingExecutor, use_pickling_executor

    built = PicklingExecutor.built
    kind = use_pickling_executor()
    shipped = _simulate(root, "--executor", kind)["run"]
    judged = _coser("judge", shipped["run_id"], "--critic", f"scripted:{root / 'critic.json'}", "--runs",
                    str(root / "runs.sqlite"), "--no-cache", "--json", "--executor", kind)["run"]
    assert PicklingExecutor.built == built + 2
    assert (shipped["ok"], shipped["usage"]["calls"]) == (len(CASES), ROUNDS * len(CASES) + (ROUNDS - 1) * len(CASES))
    assert judged["ok"] == len(CASES)
    assert all(s.scores["score"] is not None for s in RunStore(root / "runs.sqlite").samples(judged["run_id"]))


@pytest.mark.slow
def test_ray_workers_simulate_and_judge(root, ray_session):
    """On a real local Ray instance: the cast and the critic rebuilt in workers from specs."""
    shipped = _simulate(root, "--executor", "ray", "--name", "ray")["run"]
    judged = _coser("judge", shipped["run_id"], "--critic", f"scripted:{root / 'critic.json'}", "--runs",
                    str(root / "runs.sqlite"), "--no-cache", "--json", "--executor", "ray")["run"]
    assert (shipped["ok"], shipped["usage"]["calls"]) == (len(CASES), ROUNDS * len(CASES) + (ROUNDS - 1) * len(CASES))
    assert judged["ok"] == len(CASES)
    assert all(s.scores["score"] is not None for s in RunStore(root / "runs.sqlite").samples(judged["run_id"]))
