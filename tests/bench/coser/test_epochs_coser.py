"""Repeated simulations (``--epochs``) and the paper prompt set (``--prompt-set paper``)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from incanon.bench.coser.formats import TestSample
from incanon.bench.coser.report import CaseScores, model_row
from incanon.bench.coser.simulation import Cast, SimulationConfig, simulate_case
from incanon.models import ScriptedModel
from incanon.testing.cli import run_cli

CASE = {"book": "The Wall-Lamps", "i_c": 0, "tag": "id", "scenario": "The Lamphouse at dawn.",
        "key_characters": [{"name": "Wren Callow", "thought": "Slip in unseen."}],
        "dialogues": [{"character": "Dace Morrow", "message": "[Late again.] You're late."},
                      {"character": "Wren Callow", "message": "[Fine.] (nods) I know."},
                      {"character": "Environment", "message": "Wind at the door."}],
        "speaking_characters_w_env": ["Dace Morrow", "Wren Callow", "Environment"],
        "major_characters": ["Dace Morrow", "Wren Callow"],
        "plot": {"summary": "Wren is late.", "i_p": 1, "key_characters": []},
        "character_profiles": {"Dace Morrow": "A rival.", "Wren Callow": "An apprentice."}}
CRITIC = {"default": "{\"flaws\": [{\"instance\": \"flat\", \"type\": \"x\", \"severity\": 2}]}"}


def _cli(*args: str, home: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, INCANON_HOME=str(home))
    return run_cli(["coser", *args],
                   env=env, timeout=300)


def test_epochs_are_simulated_judged_and_reported_apart(tmp_path):
    (tmp_path / "test.json").write_text(json.dumps([CASE]))
    (tmp_path / "actor.json").write_text(json.dumps({"default": "[Hm.] (looks) Yes."}))
    (tmp_path / "nsp.json").write_text(json.dumps({"default": "random"}))  # speakers drawn per epoch
    (tmp_path / "critic.json").write_text(json.dumps(CRITIC))
    common = ["--test", str(tmp_path / "test.json"), "--model", f"scripted:{tmp_path / 'actor.json'}",
              "--nsp-model", f"scripted:{tmp_path / 'nsp.json'}", "--env-model", f"scripted:{tmp_path / 'actor.json'}",
              "--runs", str(tmp_path / "runs.sqlite"), "--max-rounds", "8"]
    res = _cli("simulate", *common, "--epochs", "3", home=tmp_path)
    assert res.returncode == 2 and "--temperature" in res.stderr

    res = _cli("simulate", *common, "--epochs", "3", "--temperature", "0.8", "--json", home=tmp_path)
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert (doc["run"]["ran"], doc["run"]["ok"]) == (3, 3)
    (row,) = doc["table"]
    assert row["epochs"] == 3 and row["cases"] == 3 and row["std"]["BLEU"] is not None
    run_id = doc["run"]["run_id"]

    res = _cli("judge", run_id, "--critic", f"scripted:{tmp_path / 'critic.json'}", "--runs",
               str(tmp_path / "runs.sqlite"), "--out", str(tmp_path / "eval.json"), "--json", home=tmp_path)
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert doc["run"]["ran"] == 3 and doc["table"][0]["judged"] == 3 and doc["table"][0]["epochs"] == 3
    files = [tmp_path / "eval.json", tmp_path / "eval.epoch1.json", tmp_path / "eval.epoch2.json"]
    simulations = [json.loads(f.read_text())["cases"]["The Wall-Lamps-1-0"]["simulation"] for f in files]
    assert len({json.dumps(s) for s in simulations}) > 1  # the epochs really differ
    report = _cli("report", run_id, "--runs", str(tmp_path / "runs.sqlite"), home=tmp_path)
    assert "(3 epochs)" in report.stdout and " ± " in report.stdout


def test_mean_and_std_over_epochs():
    cases = [CaseScores(case_id=c, epoch=e, domain="in-domain", scores={"bleu": b, "rouge_l": 10.0})
             for e, pairs in enumerate([[("a", 10.0), ("b", 20.0)], [("a", 20.0), ("b", 30.0)], [("a", 30.0), ("b", 40.0)]])
             for c, b in pairs]
    row = model_row("m", cases)
    assert row.epochs == 3 and row.splits["all"].bleu == pytest.approx(25.0)  # epoch means 15, 25, 35
    assert row.spread["all"]["BLEU"] == pytest.approx(10.0) and row.spread["all"]["ROUGE-L"] == pytest.approx(0.0)
    assert row.splits["all"].cases == 6 and model_row("m", cases[:2]).spread == {}


async def test_paper_prompt_set_and_prompts_without_output_examples():
    seen: dict[str, list] = {"actor": [], "nsp": []}

    def actor(messages):
        seen["actor"].append(messages)
        return "[Careful.] (nods) Yes."

    def nsp(messages):
        seen["nsp"].append(messages)
        return "1. Reasoning: Dace should end this, but Wren must answer first.\n2. Next Speaker: Wren Callow"

    cast = Cast(actor=ScriptedModel(default=actor), nsp=ScriptedModel(default=nsp),
                environment=ScriptedModel(default="Wind."))
    sample = TestSample.model_validate(CASE)
    sim = await simulate_case(sample, cast, SimulationConfig(max_rounds=3, prompt_set="paper", output_example=False))
    assert [m.role for m in sim.messages] == ["Dace Morrow", "Wren Callow", "Dace Morrow"]
    system = sim.prompts["Wren Callow"]
    assert system.startswith("You are Wren Callow from The Wall-Lamps.") and "60 words" in system
    assert "===Your Inner Thoughts===\nSlip in unseen." in system and "like [" not in system
    first = seen["actor"][0]
    assert first[1].content == "===Conversation Start===" and first[-1].content.endswith("===Conversation Start===")
    assert "Next Speaker" in sim.prompts["NSP"] and "<END CHAT>" in sim.prompts["NSP"]
    assert seen["nsp"][0][1].content == "===Conversation Start===\n\nDace Morrow: (nods) Yes."  # thoughts removed
    with_examples = await simulate_case(sample, cast, SimulationConfig(max_rounds=1, prompt_set="paper"))
    assert "like [" in with_examples.prompts["Dace Morrow"]
