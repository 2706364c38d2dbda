"""CoSER's ``*-no_length_penalty`` evaluation files are rescored without the length correction
when nothing is asked, and the report says why. The file is ours, in CoSER's evaluation layout."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from incanon.bench.coser.rescore import named_without_penalty, rescore_file
from incanon.testing.cli import run_cli

SIM = [{"role": "Ada", "content": "Ada: The tide is late."}, {"role": "Environment", "content": "Gulls cry."},
       {"role": "Bram", "content": "Then we wait."}, {"role": "Ada", "content": "We wait."}]


def _dim(*severities):
    # Scored as CoSER scores its no-length-penalty files: 100 - 5 × (sum of severities), no
    # credit for the 3 actor rounds.
    return {"flaws": [{"instance": f"f{i}", "type": "t", "severity": s} for i, s in enumerate(severities)],
            "score": max(0, min(100, 100 - 5 * sum(severities)))}


def _file(folder: Path, name: str) -> Path:
    critique = {"Storyline Consistency": _dim(2, 1), "Anthropomorphism": _dim(4), "Character Fidelity": _dim(),
                "Storyline Quality": _dim(3, 3), "bleu": 0.1, "rouge_l": 0.2}
    case = {"simulation": SIM, "critique": critique,
            "score": sum(critique[d]["score"] for d in critique if d not in ("bleu", "rouge_l")) / 4}
    path = folder / name
    path.write_text(json.dumps({"scores": {"avg": case["score"]}, "cases": {"Tides-1-0": case}}), encoding="utf-8")
    return path


@pytest.mark.parametrize("name,named", [("test_set_m-no_length_penalty.json", True),
                                        ("test_set_m_no_length_penalty.json", True),
                                        ("test_set_m.json", False), ("no_length_penalty_notes.json", False)])
def test_the_name_is_recognised(name, named):
    assert named_without_penalty(name) is named


def test_a_no_length_penalty_file_rescores_as_stored_without_a_flag(tmp_path: Path):
    path = _file(tmp_path, "test_set_m-no_length_penalty.json")
    auto = rescore_file(path)
    assert auto.disagreeing_cases == 0
    assert any("file's name says no_length_penalty" in n for n in auto.report.notes)
    forced = rescore_file(path, length_penalty=True)  # the correction asked for: the stored scores disagree
    assert forced.disagreeing_cases == 1 and any("as asked" in n for n in forced.report.notes)
    plain = rescore_file(_file(tmp_path, "test_set_m.json"))  # another name: with the correction
    assert plain.disagreeing_cases == 1


def test_the_cli_says_so_on_stderr(tmp_path: Path):
    path = _file(tmp_path, "test_set_m-no_length_penalty.json")
    env = dict(os.environ, INCANON_HOME=str(tmp_path / "home"))
    res = run_cli(["coser", "rescore", str(path)], env=env, timeout=300)
    assert res.returncode == 0, res.stderr
    assert "0 disagree" in res.stderr and "no_length_penalty: scored without the length correction" in res.stderr
    res = run_cli(["coser", "rescore", str(path), "--length-penalty"], env=env, timeout=300)
    assert res.returncode == 0 and "1 disagree" in res.stderr
