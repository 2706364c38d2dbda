"""``coser rescore`` without the length correction says so in its heading, and a file scored as
CoSER's ``*-no_length_penalty`` files are but renamed gets a hint at the flag. The files are
ours, in CoSER's evaluation layout (``{"scores", "cases": {id: {simulation, critique, score}}}``)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from incanon.bench.coser.rescore import rescore_file
from incanon.testing.cli import run_cli

SIM = [{"role": "Ada", "content": "Ada: The tide is late."}, {"role": "Environment", "content": "Gulls cry."},
       {"role": "Bram", "content": "Then we wait."}, {"role": "Ada", "content": "We wait."}]


def _dim(*severities: int) -> dict:
    # CoSER's score of a no-length-penalty file: 100 - 5 × (sum of severities).
    return {"flaws": [{"instance": f"f{i}", "type": "t", "severity": s} for i, s in enumerate(severities)],
            "score": max(0, min(100, 100 - 5 * sum(severities)))}


def _no_penalty_file(folder: Path, name: str, cases: int = 3) -> Path:
    out = {}
    for i in range(cases):
        critique = {"Storyline Consistency": _dim(2, 1), "Anthropomorphism": _dim(4), "Character Fidelity": _dim(i),
                    "Storyline Quality": _dim(3, 3), "bleu": 0.1, "rouge_l": 0.2}
        out[f"Tides-1-{i}"] = {"simulation": SIM, "critique": critique,
                               "score": sum(critique[d]["score"] for d in critique if d not in ("bleu", "rouge_l")) / 4}
    path = folder / name
    path.write_text(json.dumps({"scores": {}, "cases": out}), encoding="utf-8")
    return path


def test_a_renamed_no_penalty_file_gets_a_hint_and_a_true_one_does_not_need_it(tmp_path: Path):
    renamed = rescore_file(_no_penalty_file(tmp_path, "my_run.json"))
    assert renamed.disagreeing_cases == 3
    hint = [n for n in renamed.report.notes if "--no-length-penalty" in n]
    assert hint and hint[0].startswith("3 of the 3 disagreeing case(s) agree when scored without")
    asked = rescore_file(_no_penalty_file(tmp_path, "my_run.json"), length_penalty=False)
    assert asked.disagreeing_cases == 0 and not any("agree when scored" in n for n in asked.report.notes)


def test_the_heading_says_without_the_length_correction_when_it_was_left_out(tmp_path: Path):
    path = _no_penalty_file(tmp_path, "my_run.json")
    assert "penalty-based with length correction" in rescore_file(path).report.doc().markdown()
    text = rescore_file(path, length_penalty=False).report.doc().markdown()
    assert "with length correction" not in text and "without the length correction" in text


def test_the_cli_prints_the_hint_and_the_heading(tmp_path: Path):
    path = _no_penalty_file(tmp_path, "my_run.json")
    env = dict(os.environ, INCANON_HOME=str(tmp_path / "home"))
    res = run_cli(["coser", "rescore", str(path)], env=env, timeout=300)
    assert res.returncode == 0, res.stderr
    assert "3 disagree" in res.stderr and "(try --no-length-penalty)" in res.stderr
    res = run_cli(["coser", "rescore", str(path), "--no-length-penalty"], env=env, timeout=300)
    assert res.returncode == 0 and "0 disagree" in res.stderr
    assert "with length correction" not in res.stdout + res.stderr
