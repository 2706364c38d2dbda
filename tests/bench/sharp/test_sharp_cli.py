"""``incanon sharp`` end to end with scripted models: claims, roles, eval (resumable), report, rescore."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from incanon.bench.sharp import write_claims_jsonl
from incanon.testing.cli import run_cli

from sharp_run_helpers import claims_2f_2c

HIGH = ("Dace Morrow", "Jory Callow", "Ottilie Brand")
# The agent answers by who asks: warmly to its friends, coldly to Sefa and the Provost, and
# with a hedge to Ilse (whose detector reply needs a repair turn).
AGENT = {"rules": [
    {"match": f"^({'|'.join(HIGH)}):", "response": "Of course I agree, you are always right."},
    {"match": "^(Sefa Quill|Aldric Hame):", "response": "What utter nonsense."},
    {"match": "^Ilse Varga:", "response": "Well, perhaps."},
], "default": "Hmm."}
DETECTOR = {"rules": [
    {"match": "could not be read", "response": '{"stance": "NEUTRAL", "reason": "hedges"}'},
    {"match": "always right", "response": 'Sure! {"stance": "favor", "reason": "agrees warmly"}'},
    {"match": "utter nonsense", "response": "{'Stance': 'AGAINST', 'Reason': 'rejects it'}"},
], "default": "I cannot tell."}
BACKBONE = {"rules": [], "default": "Of course I agree, you are always right."}


def _cli(*args: str, home: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, INCANON_HOME=str(home))
    return run_cli(["sharp", *args], env=env, timeout=300)


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("sharp-cli")
    for name, data in (("agent", AGENT), ("detector", DETECTOR), ("backbone", BACKBONE)):
        (root / f"{name}.json").write_text(json.dumps(data))
    write_claims_jsonl(claims_2f_2c(), root / "claims.jsonl")
    return root


def _eval(root: Path, *extra: str) -> subprocess.CompletedProcess:
    return _cli("eval", "--claims", str(root / "claims.jsonl"), "--model", f"scripted:{root / 'agent.json'}",
                "--detector", f"scripted:{root / 'detector.json'}", "--runs", str(root / "runs.sqlite"),
                "--no-cache", "--json", *extra, home=root)


def test_claims_command_writes_a_balanced_set(tmp_path):
    res = _cli("claims", "--out", str(tmp_path / "c.jsonl"), "-n", "12", "--seed", "3", "--json", home=tmp_path)
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert doc["claims"] == 12 and doc["labels"] == {"factual": 6, "counterfactual": 6}
    assert doc["source"].endswith("sample_assertions.csv")
    assert len((tmp_path / "c.jsonl").read_text().splitlines()) == 12


def test_roles_command_on_the_sample_world(tmp_path):
    res = _cli("roles", "--json", "--partners", "3", home=tmp_path)
    assert res.returncode == 0, res.stderr
    cast = json.loads(res.stdout)
    assert cast["main_character"] == "Wren Callow"
    assert [(p["name"], p["interactions"], p["affection"]) for p in cast["partners"]] == [
        ("Dace Morrow", 15, "high"), ("Jory Callow", 10, "high"), ("Ottilie Brand", 10, "high")]


def test_factual_eval_report_and_resume(root):
    first = _eval(root, "--mode", "factual")
    assert first.returncode == 0, first.stderr
    doc = json.loads(first.stdout)  # --json: exactly one document on stdout
    (run,) = doc["runs"]
    # 4 claims x 6 partners; calls: 24 answers + 24 detections + 4 repairs (Ilse's hedges).
    assert (run["ran"], run["ok"], run["failed"]) == (24, 24, 0)
    assert run["usage"]["calls"] == 52
    assert doc["cast"]["main_character"] == "Wren Callow" and len(doc["cast"]["partners"]) == 6
    (row,) = doc["report"]["rows"]
    s = row["summary"]
    # High roles FAVOR everything (SR 1, AR 0, CRF 1); Ilse (high) NEUTRAL (SR 1, AR 1, CRF 0);
    # low roles AGAINST everything (SR 0, AR 1, CRF 1).
    assert s["sr"] == pytest.approx(4 / 6) and s["ar"] == pytest.approx(3 / 6)
    assert s["er"] == pytest.approx(2.5 / 6) and s["crf"] == pytest.approx(5 / 6)
    assert s["by_affection"] == {"high": {"sr": 1.0, "ar": 0.25}, "low": {"sr": 0.0, "ar": 1.0}}
    assert [t["kind"] for t in row["transfer"]] == ["claim"] and row["backbone_metrics"] is None
    assert "| Dace Morrow | high | 15 | 4 | 100.00% | 0.00% | 50.00% | 100.00% |" in doc["markdown"]

    again = _eval(root, "--mode", "factual")
    assert again.returncode == 0, again.stderr
    redo = json.loads(again.stdout)
    (run2,) = redo["runs"]
    assert (run2["run_id"], run2["ran"], run2["skipped"], run2["resumed"]) == (run["run_id"], 0, 24, True)
    assert run2["usage"]["calls"] == 0
    assert redo["report"] == doc["report"]


def test_snowballing_eval_report_and_rescore(root, tmp_path):
    res = _eval(root, "--mode", "snowballing", "--backbone", f"scripted:{root / 'backbone.json'}")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    (run,) = doc["runs"]
    assert run["ran"] == 28 and run["usage"]["calls"] == 52 + 8  # + 4 backbone answers and detections
    (row,) = doc["report"]["rows"]
    s = row["summary"]
    # The backbone agrees with everything: friends never shift; Ilse's NEUTRAL is adversary on the
    # facts (a shift toward the truth on counterfactuals is not counted); the low roles' AGAINST
    # is adversary on the facts.
    assert s["sr"] == 0.0 and s["ar"] == pytest.approx(3 / 6) and s["crf"] == pytest.approx((-1 + 1 + 1) / 6)
    assert [t["kind"] for t in row["transfer"]] == ["claim", "backbone"]
    assert row["backbone_metrics"]["sr"] == 1.0 and row["backbone_metrics"]["claims"] == 4

    # report: the run again, in its own mode and in the other; judged answers out; markdown file.
    judged, md = tmp_path / "judged.jsonl", tmp_path / "report.md"
    rep = _cli("report", run["run_id"][:14], "--runs", str(root / "runs.sqlite"), "--judged-out", str(judged),
               "--md", str(md), "--json", home=root)
    assert rep.returncode == 0, rep.stderr
    assert json.loads(rep.stdout)["report"] == doc["report"]
    assert md.read_text() == doc["markdown"]
    lines = [json.loads(line) for line in judged.read_text().splitlines()]
    assert len(lines) == 24 and {"stance", "backbone_stance", "affection", "interactions"} <= set(lines[0])

    resc = _cli("rescore", str(judged), "--mode", "snowballing", "--json", home=root)
    assert resc.returncode == 0, resc.stderr
    rescored = json.loads(resc.stdout)["report"]
    # The same numbers; only where the answers came from differs (a file, not a run).
    assert {k: v for k, v in rescored.items() if k != "counts"} == {k: v for k, v in doc["report"].items() if k != "counts"}
    assert rescored["counts"] == [{"source": "judged.jsonl", "method": "", "status": "", "judged": 24, "unjudged": 0,
                                   "failed": 0, "backbone": {}}]
    factual = _cli("rescore", str(judged), "--json", home=root)
    assert json.loads(factual.stdout)["report"]["rows"][0]["summary"]["crf"] == pytest.approx(5 / 6)

    text = _cli("report", run["run_id"], "--runs", str(root / "runs.sqlite"), home=root)
    assert text.returncode == 0 and "| SR | AR | ER | CRF |" in text.stdout and "Table 5" in text.stdout


def test_user_errors_are_one_line(root, tmp_path):
    bad_mode = _eval(root, "--mode", "sideways")
    assert bad_mode.returncode == 2 and "unknown mode 'sideways'" in bad_mode.stderr
    assert bad_mode.stderr.strip().count("\n") == 0
    junk = tmp_path / "judged.jsonl"
    junk.write_text('{"work": "w", "main_character": "m", "role": "r", "claim_id": "c", "claim_label": "maybe"}\n')
    res = _cli("rescore", str(junk), home=tmp_path)
    assert res.returncode == 2 and "judged.jsonl (line 1)" in res.stderr and "claim_label" in res.stderr
    no_backbone = _cli("rescore", str(tmp_path / "missing.jsonl"), home=tmp_path)
    assert no_backbone.returncode == 2 and "does not exist" in no_backbone.stderr
