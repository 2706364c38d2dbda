"""Rescoring stored answers: markers alone for multiple choice; a judge only when given one."""

from __future__ import annotations

import json

from incanon.bench.dialsim import AnswerJudge, read_rows, rescore
from incanon.models import ScriptedModel


async def test_jsonl_rows_multiple_choice(tmp_path):
    rows = [
        {"answer": "(B) Paul", "gold": "(B)", "type": "cur", "format": "mc"},
        {"answer": "(A) or (B)", "gold": "(B)", "type": "past", "format": "mc"},
        {"answer": "(E)", "gold": "(E)", "type": "fu", "format": "mc"},
        {"answer": "(C)", "gold": "(A)", "type": "ans_w_time", "format": "mc"},
        {"answer": "(A)", "gold": "(A)", "type": "past_cur", "format": "mc"},
    ]
    path = tmp_path / "answers.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows))
    report = await rescore(read_rows(path), source=path.name)
    assert report.format == "mc" and report.accuracy == 3 / 5
    assert report.statuses == {"correct": 3, "ambiguous": 1, "wrong": 1}
    cats = {k: (c.n, c.correct) for k, c in report.by_category.items()}
    assert cats == {"one-hop": (2, 1), "unanswerable": (1, 1), "fan": (1, 0), "two-hop": (1, 1)}
    assert "accuracy 60.00%" in report.markdown()


async def test_published_result_log_open_answers(tmp_path):
    log = {"answer_list": ["I don't know the answer.", "Paul", "It was Paul the wine guy", "<<<Timeout in answering>>>"],
           "gold_answer_list": ["I don't know.", "Paul", "Paul", "Ross"],
           "target_level_list": [{"current_type": "fu"}, {"current_type": "past"}, {"current_type": "ans_w_time"},
                                 {"current_type": "cur"}]}
    path = tmp_path / "entire_log.json"
    path.write_text(json.dumps(log))
    rows = read_rows(path)
    offline = await rescore(rows, source=path.name, fmt="open")
    assert offline.statuses == {"unjudged": 2, "correct": 1, "timeout": 1}
    assert offline.accuracy == 0.5, "unjudged answers are left out; the timeout counts as a failure"
    judge = AnswerJudge(ScriptedModel(default="They agree. Score: 1"))
    judged = await rescore(rows, source=path.name, fmt="open", judge=judge)
    assert judged.accuracy == 3 / 4 and judged.by_category["fan"].correct == 1


async def test_format_is_guessed_from_the_gold_answers():
    rows = [{"answer": "(A)", "gold": "(A)", "type": "cur"}, {"answer": "(b)", "gold": "(C)", "type": "cur"}]
    report = await rescore(rows, source="x")
    assert report.format == "mc" and report.accuracy == 0.5
