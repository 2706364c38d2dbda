"""``incanon coser simulate / judge / report / rescore`` end to end with scripted models, and resume."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from incanon.testing.cli import run_cli

CASES = [
    {"book": "Pride and Prejudice", "i_c": 0, "tag": "id", "scenario": "Mr Bennet's study.",
     "key_characters": [{"name": "Elizabeth Bennet", "thought": "I dread the letter."},
                        {"name": "Mr Bennet", "thought": "Fine sport."}],
     "dialogues": [{"character": "Mr Bennet", "message": "[Amused.] Lizzy, come into my room."},
                   {"character": "Elizabeth Bennet", "message": "[Dread.] What is it, Papa?"},
                   {"character": "Environment", "message": "The fire crackles."},
                   {"character": "Mr Bennet", "message": "A letter from Mr Collins."}],
     "speaking_characters_w_env": ["Mr Bennet", "Elizabeth Bennet", "Environment"],
     "major_characters": ["Mr Bennet", "Elizabeth Bennet"],
     "plot": {"summary": "A letter.", "i_p": 70, "key_characters": []},
     "character_profiles": {"Mr Bennet": "A sardonic father.", "Elizabeth Bennet": "A witty daughter."}},
    {"book": "Dracula", "i_c": 1, "tag": "ood", "scenario": "The castle door at night.",
     "key_characters": [{"name": "Jonathan Harker", "motivation": "Be polite."}],
     "dialogues": [{"character": "Count Dracula", "message": "Welcome to my house!"},
                   {"character": "Jonathan Harker", "message": "[Cold hand.] Count Dracula?"}],
     "speaking_characters_w_env": ["Count Dracula", "Jonathan Harker", "Environment"],
     "major_characters": ["Count Dracula", "Jonathan Harker"],
     "plot": {"summary": "Harker arrives.", "i_p": 3, "key_characters": []},
     "character_profiles": {"Count Dracula": "An old nobleman.", "Jonathan Harker": "A young solicitor."}},
]
ACTOR = {"rules": [{"match": "Environment's turn", "response": "Rain beats on the window."},
                   {"match": "Mr Bennet's turn", "response": "[Ha.] (waves the letter) Mr Collins writes of you."}],
         "default": "[Careful.] (nods) Indeed, indeed."}
# Names in turn, then the end: the scene stops after round 5 (six messages).
NSP = {"rules": [{"match": r"last message was Mr Bennet's", "response": "Elizabeth Bennet"},
                 {"match": r"last message was Elizabeth Bennet's", "response": "Environment"},
                 {"match": r"last message was Environment's", "response": "END"}],
       "default": "random"}
CRITIC = {"rules": [
    {"match": "List the Storyline Consistency", "response": "```json\n{\"Storyline Consistency\": {\"flaws\": [{\"instance\": \"calmer than the book\", \"type\": \"Storyline Consistency\", \"severity\": 3},]}}\n```"},
    {"match": "List the Anthropomorphism", "response": "{'Anthropomorphism': {'flaws': [{'instance': 'flat', 'type': 'Emotional Depth', 'severity': '4 (severe)'}]}}"},
    {"match": "List the Character Fidelity", "response": "{\"flaws\": [{\"instance\": \"too modern\", \"type\": \"Character Language\", \"severity\": 2}]}"},
    {"match": "List the Storyline Quality", "response": "It repeats itself a little."},
    {"match": "could not be read", "response": "{\"Storyline Quality\": {\"flaws\": [{\"instance\": \"repeats\", \"type\": \"Flow & Progression\", \"severity\": 5}]}}"},
]}


def _cli(*args: str, home: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, INCANON_HOME=str(home))
    return run_cli(["coser", *args],
                   env=env, timeout=300)


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("coser-cli")
    (root / "test.json").write_text(json.dumps(CASES))
    for name, data in (("actor", ACTOR), ("nsp", NSP), ("critic", CRITIC)):
        (root / f"{name}.json").write_text(json.dumps(data))
    return root


def _simulate(root: Path, *extra: str) -> subprocess.CompletedProcess:
    return _cli("simulate", "--test", str(root / "test.json"), "--model", f"scripted:{root / 'actor.json'}",
                "--nsp-model", f"scripted:{root / 'nsp.json'}", "--env-model", f"scripted:{root / 'actor.json'}",
                "--runs", str(root / "runs.sqlite"), *extra, home=root)


def test_simulate_judge_report_rescore_and_resume(root):
    first = _simulate(root, "--limit", "1", "--json")
    assert first.returncode == 0, first.stderr
    doc = json.loads(first.stdout)
    assert (doc["cases"], doc["run"]["ran"], doc["run"]["ok"]) == (1, 1, 1)
    sim_run = doc["run"]["run_id"]
    # Six messages (END honoured after round 5): six actor or environment calls, six predictions.
    assert doc["run"]["usage"]["calls"] == 6 + 6
    (row,) = doc["table"]
    assert row["BLEU"] is not None and row["Average"] is None and row["cases"] == 1

    second = _simulate(root, "--json")  # the whole file now: the first case is not simulated again
    doc = json.loads(second.stdout)
    assert doc["run"]["run_id"] == sim_run and doc["run"]["resumed"]
    assert (doc["run"]["ran"], doc["run"]["skipped"]) == (1, 1)

    judged = _cli("judge", sim_run[:16], "--critic", f"scripted:{root / 'critic.json'}", "--runs",
                  str(root / "runs.sqlite"), "--out", str(root / "eval.json"), "--json", home=root)
    assert judged.returncode == 0, judged.stderr
    doc = json.loads(judged.stdout)
    assert doc["source_run"] == sim_run and (doc["run"]["ran"], doc["run"]["failed"]) == (2, 0)
    assert doc["run"]["usage"]["calls"] == 2 * 5  # four dimensions, one repair each
    judged_run = doc["run"]["run_id"]
    (row,) = doc["table"]
    assert row["judged"] == 2
    # Pride and Prejudice: six messages, 4 actor rounds → credit 1.2.
    evaluation = json.loads((root / "eval.json").read_text())
    case = evaluation["cases"]["Pride and Prejudice-70-0"]
    assert [m["role"] for m in case["simulation"]] == ["Mr Bennet", "Elizabeth Bennet", "Environment",
                                                       "Mr Bennet", "Elizabeth Bennet", "Environment"]
    assert case["critique"]["Storyline Consistency"]["score"] == pytest.approx(100 - 5 * (3 - 1.2))
    assert case["critique"]["Anthropomorphism"]["score"] == pytest.approx(100 - 5 * (4 - 1.2))
    assert case["critique"]["Storyline Quality"]["score"] == pytest.approx(100 - 5 * (5 - 1.2))
    assert 0 <= case["critique"]["bleu"] <= 1 and evaluation["incanon"]["source_run"] == sim_run

    again = _cli("judge", sim_run, "--critic", f"scripted:{root / 'critic.json'}", "--runs",
                 str(root / "runs.sqlite"), "--json", home=root)
    doc = json.loads(again.stdout)
    assert doc["run"]["run_id"] == judged_run and (doc["run"]["ran"], doc["run"]["skipped"]) == (0, 2)

    md = root / "report.md"
    report = _cli("report", sim_run, "--runs", str(root / "runs.sqlite"), "--md", str(md), "--json", home=root)
    assert report.returncode == 0, report.stderr
    doc = json.loads(report.stdout)
    assert doc["runs"] == [judged_run]
    table = doc["table"][0]
    assert set(doc["report"]["rows"][0]["splits"]) == {"all", "in-domain", "out-of-domain"}
    assert "## In-domain" in md.read_text() and "## Out-of-domain" in md.read_text()

    rescored = _cli("rescore", str(root / "eval.json"), "--test", str(root / "test.json"), "--json", home=root)
    assert rescored.returncode == 0, rescored.stderr
    doc = json.loads(rescored.stdout)
    assert doc["layout"] == "incanon" and doc["disagreeing_cases"] == 0
    for column in ("Storyline Consistency", "Anthropomorphism", "Character Fidelity", "Storyline Quality",
                   "Average", "BLEU", "ROUGE-L"):
        assert doc["table"][0][column] == pytest.approx(table[column])

    text = _cli("report", judged_run, "--runs", str(root / "runs.sqlite"), home=root)
    assert text.returncode == 0 and "| Model | Storyline Consistency" in text.stdout


def test_user_errors_exit_2(root):
    res = _simulate(root, "--rag", "expr3_conv1")
    assert res.returncode == 2 and "--book-data" in res.stderr
    res = _cli("judge", "no-such-run", "--critic", "embedded", "--runs", str(root / "missing.sqlite"), home=root)
    assert res.returncode == 2 and "no run store" in res.stderr
    (root / "bad.json").write_text("[1, 2]")
    res = _cli("rescore", str(root / "bad.json"), home=root)
    assert res.returncode == 2 and "cases" in res.stderr
