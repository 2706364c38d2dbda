"""The Table 5 report: exact means and SEMs on hand-made judged items; the scoring rule."""

from __future__ import annotations

import json
import math

import pytest

from incanon.bench.timechara import build_report, read_judged_jsonl, spatiotemporal_score
from incanon.errors import InputError

ROWS = [
    # future: temporal 1, 0, 1, 1 -> 75.0 ± 25.0
    {"data_type": "future", "question_generation": "fact_structured", "temporal_score": 1, "personality_score": 7},
    {"data_type": "future", "question_generation": "fact_freeform", "temporal_score": 0, "personality_score": 6,
     "hallucination_type": "temporal"},
    {"data_type": "future", "question_generation": "fact_freeform", "temporal_score": 1, "personality_score": 5},
    {"data_type": "future", "question_generation": "fact_structured", "temporal_score": 1, "personality_score": 4},
    # past-absence: temporal × spatial = 1, 0, 0 -> 33.3 ± 33.3
    {"data_type": "past-absence", "question_generation": "fact_structured", "temporal_score": 1,
     "spatial_score": 1, "personality_score": 3},
    {"data_type": "past-absence", "question_generation": "fact_structured", "temporal_score": 1,
     "spatial_score": 0, "personality_score": 2, "hallucination_type": "spatial"},
    {"data_type": "past-absence", "question_generation": "fact_structured", "temporal_score": 0,
     "spatial_score": 1, "personality_score": 1, "hallucination_type": "spatial"},
    # past-presence: 1, 1 -> 100.0 ± 0.0
    {"data_type": "past-presence", "question_generation": "fact_structured", "temporal_score": 1,
     "spatial_score": 1, "personality_score": 6},
    {"data_type": "past-presence", "question_generation": "fact_structured", "temporal_score": 1,
     "spatial_score": 1, "personality_score": 6, "series": "other"},
    # past-only: one item, 0 -> 0.0, no SEM; personality missing
    {"data_type": "past-only", "question_generation": "fake_freeform", "temporal_score": 0,
     "personality_score": None, "hallucination_type": "unclarified"},
]


def _write(path, rows, model="m1", method="zero-shot"):
    with path.open("a") as f:
        for row in rows:
            f.write(json.dumps({"model": model, "method": method, "series": "lanterns", **row}) + "\n")
    return path


def test_scoring_rule():
    assert spatiotemporal_score("future", 1, None) == 1.0
    assert spatiotemporal_score("past-only", 0, 1) == 0.0  # a stray spatial score is ignored
    assert spatiotemporal_score("past-presence", 1, 0) == 0.0
    assert spatiotemporal_score("past-absence", 0, 1) == 0.0
    assert spatiotemporal_score("past-absence", 1, 1) == 1.0
    assert spatiotemporal_score("past-absence", 1, None) is None
    assert spatiotemporal_score("future", None, None) is None


def test_exact_means_and_sems(tmp_path):
    path = _write(tmp_path / "judged.jsonl", ROWS)
    _write(path, [ROWS[0], ROWS[1]], method="narrative-experts")
    _write(path, [ROWS[0]], model="m0", method="rag")
    report = build_report(read_judged_jsonl(path))
    assert [(r.model, r.method) for r in report.rows] == [
        ("m1", "zero-shot"), ("m1", "narrative-experts"), ("m0", "rag")]
    cells = report.rows[0].cells
    assert cells["future"].mean == pytest.approx(75.0) and cells["future"].sem == pytest.approx(25.0)
    assert cells["past-absence"].mean == pytest.approx(100 / 3) and cells["past-absence"].sem == pytest.approx(100 / 3)
    assert cells["past-presence"].mean == pytest.approx(100.0) and cells["past-presence"].sem == pytest.approx(0.0)
    assert cells["past-only"].mean == pytest.approx(0.0) and cells["past-only"].sem is None
    # Avg. is over the ten items, not over the four columns.
    assert cells["avg"].n == 10 and cells["avg"].mean == pytest.approx(60.0)
    assert cells["avg"].sem == pytest.approx(100 * math.sqrt(0.4 * 0.6 * 10 / 9 / 10))
    assert cells["personality"].n == 9 and cells["personality"].missing == 1
    assert cells["personality"].mean == pytest.approx(40 / 9)
    assert cells["personality"].sem == pytest.approx(0.6894263136661588)
    ne = report.rows[1].cells
    assert ne["future"].mean == pytest.approx(50.0) and ne["past-absence"].mean is None


def test_breakdowns_and_hallucination_counts(tmp_path):
    report = build_report(read_judged_jsonl(_write(tmp_path / "j.jsonl", ROWS)))
    by = {b.name: b for b in report.breakdowns}
    fmt = {r.group: r for r in by["question format"].rows}
    assert fmt["structured"].items == 7 and fmt["free-form"].items == 3
    assert fmt["free-form"].cells["avg"].mean == pytest.approx(100 / 3)
    fake = {r.group: r for r in by["fact vs fake"].rows}
    assert fake["fake"].items == 1 and fake["fact"].items == 9
    assert "series" not in by  # the per-series table is the paper's Table 26 layout (report.series)
    series = {r.series: sum(c.n for c in r.cells.values()) for r in report.series if r.method == "zero-shot"}
    assert set(series) == {"lanterns", "other"} and sum(series.values()) == 10
    (h,) = report.hallucinations
    assert h.inconsistent == {"future": 1, "past-absence": 2, "past-only": 1, "overall": 4}
    assert h.counts["spatial"]["past-absence"] == 2 and h.counts["temporal"]["future"] == 1
    assert h.counts["unclarified"]["overall"] == 1 and h.unclassified == 0


def test_markdown_layout(tmp_path):
    text = build_report(read_judged_jsonl(_write(tmp_path / "j.jsonl", ROWS))).markdown()
    assert "| Model | Method | Future | Past-absence | Past-presence | Past-only | Avg. | Personality (1-7) | n |" in text
    assert "| m1 | zero-shot | 75.0 ± 25.0 | 33.3 ± 33.3 | 100.0 ± 0.0 | 0.0 | 60.0 ± 16.3 | 4.44 ± 0.69 | 10 |" in text
    assert "### By series" in text and "### By fact vs fake" in text
    assert "| spatial | 0/1 | 2/2 | 0/0 | 0/1 | 2/4 |" in text


def test_bad_judged_rows_name_line_and_field(tmp_path):
    path = tmp_path / "bad.jsonl"
    good = {"model": "m", "method": "zero-shot", "data_type": "future", "question_generation": "fact_structured",
            "temporal_score": 1}
    lines = [
        good,
        {**good, "data_type": "past-presence"},  # no spatial score
        {**good, "temporal_score": 3},
        {**good, "personality_score": "high"},
        {k: v for k, v in good.items() if k != "model"},
        {**good, "temporal_score": "1", "personality_score": "6"},  # numeric strings are fine
    ]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n\n{oops\n")
    with pytest.raises(InputError) as info:
        read_judged_jsonl(path)
    text = str(info.value)
    assert "5 of 7 rows" in text
    assert "line 2, spatial_score: missing" in text
    assert "line 3, temporal_score: 3 is outside 0-1" in text
    assert "line 4, personality_score: 'high' is not a number" in text
    assert "line 5, model: missing" in text
    assert "line 8, row: invalid JSON" in text  # the blank line 7 is skipped
    assert "line 6" not in text and "judged TimeChara items" in text
