"""Rescoring: the authors' two released log layouts reproduce their recorded scores; answers are
judged again only when asked, by the reference's rules (fixtures in examples/dialsim, our own
content in the authors' layouts)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from dialsim_helpers import cli_exit
from incanon.bench.dialsim import AnswerJudge, calibrate_mc, read_log, rescore
from incanon.bench.dialsim.rescore import _judge_row, options_of
from incanon.errors import ConfigError, IncanonError, InputError
from incanon.models import ScriptedModel

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "dialsim"
MC_LOG, MC_SUMMARY, OPEN_LOG = (EXAMPLES / n for n in ("entire_log-bakery-mc.json", "results-bakery-mc.json",
                                                      "entire_log-bakery-open.json"))


@pytest.mark.parametrize("path", [MC_LOG, MC_SUMMARY, OPEN_LOG])
async def test_released_layouts_reproduce_their_recorded_scores(path):
    recorded = json.loads(path.read_text())
    report = await rescore(read_log(path))
    assert report.verdicts == "recorded"
    assert report.accuracy == recorded["score"] and report.calibrated_accuracy == recorded["calibrated_score"]
    assert report.matches_recorded() is True


async def test_the_summary_layout_is_read_and_the_full_log_gives_types():
    summary, full = read_log(MC_SUMMARY), read_log(MC_LOG)
    assert summary.layout == "results" and full.layout == "entire_log"
    assert [r.recorded for r in summary.rows] == [r.recorded for r in full.rows]
    assert full.rows[6].stage == "answer" and full.rows[7].recorded == "timeout"
    report = await rescore(full)
    assert report.by_source["fan"].n == 3 and report.by_source["tkg"].n == 8
    assert report.statuses == {"correct": 2, "ambiguous": 5, "wrong": 2, "timeout": 2}


async def test_rejudging_multiple_choice_reproduces_every_recorded_verdict():
    log = read_log(MC_LOG)
    for i, row in enumerate(log.rows):
        if row.recorded == "timeout":
            continue
        assert await _judge_row(row, i, "mc", None, False, "x") == (row.recorded, row.recorded_calibrated), i
    report = await rescore(log, rejudge=True)
    assert report.verdicts == "rejudged" and report.matches_recorded()


def test_calibration_cases():
    options = ["25", "30", "26", "40", "I don't know. (None of the above)"]
    assert calibrate_mc("ambiguous", "The answer is (C). Not (A).", "(C)", options) == "correct"
    assert calibrate_mc("ambiguous", "(E) none of the options (A)-(D)", "(E)", options) == "correct"
    assert calibrate_mc("ambiguous", "None of the options, (A) or (E)?", "(A)", options) == "wrong", "case matters"
    assert calibrate_mc("ambiguous", "(C) [EXPLANATION] (A) is wrong", "(C)", options) == "ambiguous"
    assert calibrate_mc("ambiguous", "26 [EXPLANATION] (C); (A) 25 no", "(C)", options) == "correct"
    assert calibrate_mc("wrong", "(b)", "(B)", options) == "wrong", "only ambiguous answers are calibrated"
    assert options_of("Cy: How old?\n\t(A) 25\n\t(B) 30\n\t(C) 26\n\t(D) 40\n\t(E) I don't know.") == \
        ["25", "30", "26", "40", "I don't know."]


async def test_lenient_matching_is_an_option():
    log = read_log(MC_LOG)
    strict = await rescore(log, rejudge=True)
    lenient = await rescore(log, rejudge=True, lenient=True)
    assert lenient.statuses["correct"] == strict.statuses["correct"] + 1, "'(b)' counts only when lenient"


async def test_open_logs_keep_their_judge_verdicts_and_rejudge_only_with_a_judge():
    log = read_log(OPEN_LOG)
    kept = await rescore(log)
    assert kept.accuracy == 0.4 and kept.statuses["timeout"] == 1, "not 100 % nor '-': the recorded verdicts"
    offline = await rescore(log, rejudge=True)
    assert offline.statuses == {"correct": 1, "timeout": 1, "unjudged": 3}, "only the exact match is judged offline"
    judge = AnswerJudge(ScriptedModel(rules=[(r"Given answer: Ben\?", "Same. Score: 1")], default="No. Score: 0"))
    judged = await rescore(log, rejudge=True, judge=judge)
    assert judged.accuracy == 0.4 and judged.statuses == {"correct": 2, "wrong": 2, "timeout": 1}


async def test_a_summary_cannot_be_judged_again():
    with pytest.raises(ConfigError, match="no answers"):
        await rescore(read_log(MC_SUMMARY), rejudge=True)


async def test_multiple_choice_on_an_open_log_is_a_clear_error():
    with pytest.raises(InputError, match=r"gold_answer_list\[0\].*not multiple choice"):
        await rescore(read_log(OPEN_LOG), fmt="mc")


def test_multiple_choice_on_an_open_log_exits_2_without_a_traceback(monkeypatch, capsys):
    assert cli_exit(["dialsim", "rescore", str(OPEN_LOG), "--format", "mc"], monkeypatch) == 2
    assert "not multiple choice" in capsys.readouterr().err


async def test_jsonl_rows_are_scored_with_errors_counted_wrong(tmp_path):
    rows = [
        {"answer": "(B) Paul", "gold": "(B)", "type": "cur", "format": "mc"},
        {"answer": "(A) or (B)", "gold": "(B)", "type": "past", "format": "mc"},
        {"answer": "(E)", "gold": "(E)", "type": "fu", "format": "mc"},
        {"answer": "(C)", "gold": "(A)", "type": "ans_w_time", "format": "mc"},
        {"answer": "(A)", "gold": "(A)", "type": "past_cur", "format": "mc"},
    ]
    path = tmp_path / "answers.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows))
    report = await rescore(read_log(path))
    assert report.format == "mc" and report.accuracy == 3 / 5 and report.verdicts == "scored"
    assert report.statuses == {"correct": 3, "ambiguous": 1, "wrong": 1}
    cats = {k: (c.n, c.correct) for k, c in report.by_category.items()}
    assert cats == {"one-hop": (2, 1), "unanswerable": (1, 1), "fan": (1, 0), "two-hop": (1, 1)}


@pytest.mark.parametrize("content, message", [
    (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    (b'{"result_list": [' + b"1" * 100_000 + b"]}", "digits"),
    (b'{"score": NaN, "result_list": ["Correct"]}', "NaN"),
    (b'{"result_list": ["Correct", "Maybe"]}', r"result_list\[1\]\): unknown verdict"),
    (b"\x80\x04N.", "pickle"),
    (b'{"answer_list": ["\xff"]}', "UTF-8"),
    (b"", "empty"),
    (b'{"something": 1}', "not a DialSim log"),
])
def test_bad_logs_are_one_line_and_exit_2(tmp_path, content, message, monkeypatch, capsys):
    path = tmp_path / "log.json"
    path.write_bytes(content)
    with pytest.raises(IncanonError, match=message):
        read_log(path)
    assert cli_exit(["dialsim", "rescore", str(path)], monkeypatch) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "Traceback" not in err


def test_a_directory_is_refused(tmp_path):
    with pytest.raises(IncanonError, match="directory"):
        read_log(tmp_path)
