"""``dialsim rescore`` names a log's format as the guide's table does: a released log whose
questions carry their choices in words is ``mc-nl``, not ``open``. The logs are ours, in the
released ``entire_log-*.json`` layout."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from incanon.bench.dialsim import read_log, rescore

QUESTIONS = {
    "mc-nl": ["Ben: Who bakes the rye? Cy? or Dee? or Gus? or Ana? or you don't know?",
              "Dee: Where did Ana go? Paris? or Rome? or Oslo? or Bonn? or you don't know?"],
    "open": ["Ben: Who bakes the rye?", "Dee: Where did Ana go? Paris, or you don't know?x"],
}


def _log(tmp_path: Path, kind: str) -> Path:
    questions = QUESTIONS[kind]
    data = {"score": 0.5, "calibrated_score": 0.5, "result_list": ["Correct", "Wrong"],
            "calibrated_result_list": ["Correct", "Wrong"], "answer_list": ["Cy", "Rome"],
            "gold_answer_list": ["Cy", "Paris"], "target_level_list": [{"current_type": "cur"}, {"current_type": "ans_wo_time"}],
            "ret_histories_question_answer_list": [["No history.\n", q, g, a]
                                                   for q, g, a in zip(questions, ["Cy", "Paris"], ["Cy", "Rome"])]}
    path = tmp_path / f"entire_log-bakery-{kind}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.parametrize("kind", ["mc-nl", "open"])
async def test_the_format_is_read_from_the_questions(tmp_path, kind):
    report = await rescore(read_log(_log(tmp_path, kind)))
    assert report.format == kind and report.accuracy == 0.5 and report.matches_recorded()


async def test_an_incanon_worded_question_reads_as_mc_nl_too(tmp_path):
    path = _log(tmp_path, "mc-nl")
    data = json.loads(path.read_text())
    for entry in data["ret_histories_question_answer_list"]:
        entry[1] = "Ben: Who bakes the rye? Is it Cy, Dee, Gus or Ana, or don't you know?"
    path.write_text(json.dumps(data))
    assert (await rescore(read_log(path))).format == "mc-nl"
