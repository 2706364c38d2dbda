"""``incanon timechara`` end to end with scripted models: build, eval (resumable), report, rescore."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from timechara_helpers import published_rows
from incanon.testing.cli import run_cli

HELPER = {"rules": [
    {"match": "Summarize the scene as a single event",
     "response": json.dumps({"event_summary": "Wren and Dace quarrelled over the Sea-Wall round.",
                             "participants": ["Wren Callow", "Dace Morrow"]})},
    {"match": "Write one interview question about this event",
     "response": "Sure! " + json.dumps({"question": "What did Wren and Dace quarrel about?",
                                        "answer": "The Sea-Wall round."})},
    {"match": "Write a falsified version",
     "response": json.dumps({"fake_event_summary": "Wren and Dace quarrelled over a boat.", "method": 2})},
    {"match": "presupposes the fake event",
     "response": json.dumps({"question": "Why did Wren and Dace quarrel over a boat?",
                             "true_answer": "They quarrelled over the Sea-Wall round, not a boat."})},
    {"match": "Write the character's answer", "response": "I could not tell you about that."},
    {"match": "stays consistent with what the character can know", "response": "Consistent.\nScore: 1"},
]}
AGENT = {"rules": [], "default": "I have no idea what you mean."}
JUDGE = {"rules": [
    {"match": "captures a character's personality", "response": "Fits.\nScore: 5"},
    {"match": "Classify the main error", "response": "It reveals the future.\nType: temporal"},
    {"match": "Future:", "response": "It leaks the future.\nScore: 0"},
], "default": "Consistent.\nScore: 1"}


def _cli(*args: str, home: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, INCANON_HOME=str(home))
    return run_cli(["timechara", *args], env=env, timeout=300)


@pytest.fixture(scope="module")
def work(tmp_path_factory, sample_store_dir):
    root = tmp_path_factory.mktemp("cli")
    for name, data in (("helper", HELPER), ("agent", AGENT), ("judge", JUDGE)):
        (root / f"{name}.json").write_text(json.dumps(data))
    res = _cli("build", "--store", str(sample_store_dir), "--out", str(root / "items.jsonl"),
               "--helper", f"scripted:{root / 'helper.json'}", "--characters", "Wren Callow,Dace Morrow,Sefa Quill",
               "--json", home=root)
    assert res.returncode == 0, res.stderr
    built = json.loads(res.stdout)
    return root, built


def _eval(root: Path, *extra: str) -> subprocess.CompletedProcess:
    return _cli("eval", "--items", str(root / "items.jsonl"), "--model", f"scripted:{root / 'agent.json'}",
                "--judge", f"scripted:{root / 'judge.json'}", "--runs", str(root / "runs.sqlite"), *extra, home=root)


def test_build_writes_items_of_every_cell(work):
    root, built = work
    assert built["items"] == len((root / "items.jsonl").read_text().splitlines())
    assert set(built["report"]["counts"]) == {
        "fact_structured/future", "fact_structured/past-presence", "fact_structured/past-absence",
        "fact_freeform/future", "fact_freeform/past-only", "fake_freeform/past-only"}
    assert (root / "cache.sqlite").is_file()  # helper calls went through the response cache


def test_eval_json_report_and_resume(work):
    root, _ = work
    # Hallucination types are off by default under the paper protocol (evaluate.py makes no
    # such call): asked for here.
    first = _eval(root, "--method", "zero-shot,narrative-experts", "--sample", "paper12", "--json",
                  "--hallucination-types")
    assert first.returncode == 0, first.stderr
    doc = json.loads(first.stdout)  # --json: one document on stdout, nothing else
    assert [(r["method"], r["ran"], r["ok"]) for r in doc["runs"]] == [("zero-shot", 12, 12), ("narrative-experts", 12, 12)]
    assert doc["items"] == 12 and not doc["sample"]["warnings"]
    rows = doc["report"]["rows"]
    assert [(r["method"], r["items"]) for r in rows] == [("zero-shot", 12), ("narrative-experts", 12)]
    cells = rows[0]["cells"]
    assert cells["future"]["mean"] == 0.0 and cells["future"]["n"] == 4
    assert cells["past-absence"]["mean"] == cells["past-presence"]["mean"] == cells["past-only"]["mean"] == 100.0
    assert cells["avg"]["mean"] == pytest.approx(100 * 8 / 12)
    assert cells["personality"]["mean"] == 5.0
    assert doc["report"]["hallucinations"][0]["counts"]["temporal"]["future"] == 4

    again = _eval(root, "--method", "zero-shot,narrative-experts", "--sample", "paper12", "--json",
                  "--hallucination-types")
    assert again.returncode == 0, again.stderr
    redo = json.loads(again.stdout)
    assert [(r["run_id"], r["ran"], r["skipped"], r["resumed"]) for r in redo["runs"]] == [
        (r["run_id"], 0, 12, True) for r in doc["runs"]]
    assert redo["report"]["rows"] == doc["report"]["rows"]

    ids = [r["run_id"] for r in doc["runs"]]
    rep = _cli("report", *ids, "--runs", str(root / "runs.sqlite"), "--json", "--md", str(root / "t5.md"),
               "--judged-out", str(root / "judged.jsonl"), home=root)
    assert rep.returncode == 0, rep.stderr
    assert json.loads(rep.stdout)["report"]["rows"] == doc["report"]["rows"]
    assert "| Model | Method | Future |" in (root / "t5.md").read_text()

    res = _cli("rescore", str(root / "judged.jsonl"), "--json", home=root)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["report"]["rows"] == doc["report"]["rows"]
    text = _cli("rescore", str(root / "judged.jsonl"), home=root)
    assert "| scripted:" in text.stdout and "zero-shot | 0.0 ± 0.0 |" in text.stdout


def test_rescore_reports_bad_rows_by_line(tmp_path):
    path = tmp_path / "judged.jsonl"
    path.write_text(json.dumps({"model": "m", "method": "zero-shot", "data_type": "future",
                                "question_generation": "fact_structured", "temporal_score": 1}) + "\n"
                    + json.dumps({"model": "m", "method": "zero-shot", "data_type": "past-absence",
                                  "question_generation": "fact_structured", "temporal_score": 1}) + "\n")
    res = _cli("rescore", str(path), home=tmp_path)
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert "line 2, spatial_score: missing" in res.stderr


def test_published_items_without_a_store(work, tmp_path):
    root, _ = work
    data = tmp_path / "published.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in published_rows()))
    base = ["eval", "--dataset", str(data), "--model", f"scripted:{root / 'agent.json'}",
            "--judge", f"scripted:{root / 'judge.json'}", "--method", "zero-shot,narrative-experts",
            "--runs", str(tmp_path / "runs.sqlite"), "--json"]
    missing = _cli(*base, home=tmp_path)  # a personality judge without a personality: refused
    assert missing.returncode == 2 and "no personality text for Harry Potter" in missing.stderr
    assert not (tmp_path / "runs.sqlite").exists() or "timechara-" not in missing.stdout
    folder = tmp_path / "personality"
    folder.mkdir()
    for slug in ("harry_potter", "hermione_granger"):  # the authors' file names
        (folder / f"{slug}_personality.txt").write_text(f"{slug} is brave.\n")
    partial = _cli(*base, "--personalities", str(folder), home=tmp_path)
    assert partial.returncode == 2 and "Ronald Weasley" in partial.stderr
    (folder / "ronald_weasley_personality.txt").write_text("Loyal and funny.\n")
    res = _cli(*base, "--personalities", str(folder), home=tmp_path)
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert [r["ok"] for r in doc["runs"]] == [5, 5]
    for method in ("rag-cutoff", "few-shot", "rag"):
        bad = _cli("eval", "--dataset", str(data), "--model", f"scripted:{root / 'agent.json'}",
                   "--judge", f"scripted:{root / 'judge.json'}", "--method", method, "--personalities", str(folder),
                   "--runs", str(tmp_path / "runs.sqlite"), home=tmp_path)
        assert bad.returncode == 2 and "Traceback" not in bad.stderr
        assert "--store" in bad.stderr and method in bad.stderr


def test_retrieval_methods_run_with_a_store(work, tmp_path, mini_store_dir):
    root, _ = work
    import shutil

    store = tmp_path / "canon"
    shutil.copytree(mini_store_dir, store)
    items = tmp_path / "items.jsonl"
    built = _cli("build", "--store", str(store), "--out", str(items), "--helper", f"scripted:{root / 'helper.json'}",
                 "--characters", "Wren Callow", "--no-fake", "--no-freeform", home=tmp_path)
    assert built.returncode == 0, built.stderr
    res = _cli("eval", "--items", str(items), "--model", f"scripted:{root / 'agent.json'}",
               "--judge", f"scripted:{root / 'judge.json'}", "--method", "rag-cutoff", "--store", str(store),
               "--limit", "2", "--runs", str(tmp_path / "runs.sqlite"), "--json", home=tmp_path)
    assert res.returncode == 0, res.stderr
    (run,) = json.loads(res.stdout)["runs"]
    assert run["ok"] == 2 and run["failed"] == 0


def test_usage_errors_exit_2(work, tmp_path):
    root, _ = work
    both = _eval(root, "--dataset", str(root / "items.jsonl"))
    assert both.returncode == 2 and "exactly one of --items" in both.stderr
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"series": "x"}) + "\n")
    res = _cli("eval", "--dataset", str(bad), "--model", "scripted:x.json", "--judge", "scripted:x.json", home=tmp_path)
    assert res.returncode == 2 and "line 1" in res.stderr and "Traceback" not in res.stderr
    res = _cli("build", "--store", str(tmp_path / "nowhere"), "--out", str(tmp_path / "o.jsonl"), home=tmp_path)
    assert res.returncode == 2 and "no canon store" in res.stderr
