"""The report data layer and its renderers on scripted runs of the demo and TimeChara."""

from __future__ import annotations

import base64
import re

import pytest

from incanon.report import build_report, render_html, render_markdown, write_report
from incanon.runs import RunStore

from report_helpers import EXTERNAL

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def store(report_runs):
    with RunStore(report_runs["runs_path"], create=False) as runs:
        yield runs


@pytest.fixture
def report(store, report_runs):
    return build_report(store, [report_runs["demo"], *report_runs["timechara"]])


def _tables(section):
    return [b.table for b in section.blocks if b.kind == "table"]


def test_one_section_per_benchmark_in_the_order_given(report, report_runs):
    assert [s.benchmark for s in report.sections] == ["demo", "timechara"]
    demo, tc = report.sections
    assert [r.id for r in demo.runs] == [report_runs["demo"]]
    assert [r.id for r in tc.runs] == report_runs["timechara"]
    assert report.title == "incanon report: demo, timechara" and not demo.notes and not tc.notes


def test_timechara_section_has_table_5_with_sem_and_charts(report, store, report_runs):
    from incanon.bench.timechara import build_report as table5
    from incanon.bench.timechara import rows_from_runs

    tc = report.sections[1]
    main = _tables(tc)[0]
    assert main.columns[:8] == ["Model", "Method", "Future", "Past-absence", "Past-presence", "Past-only", "Avg.",
                                "Personality (1-7)"]
    # The scripted agent never refuses the future: 0 on the future item, 100 elsewhere, 80 ± 20 on average.
    assert [(r[1], r[2], r[6]) for r in main.rows] == [("zero-shot", "0.0", "80.0 ± 20.0"),
                                                       ("narrative-experts", "0.0", "80.0 ± 20.0")]
    assert tc.data == table5(rows_from_runs(store, report_runs["timechara"])).model_dump(mode="json")
    titles = [c.title for c in tc.charts]
    assert "Spatiotemporal consistency by data type" in titles and "Distribution of personality" in titles
    per_type = tc.charts[0]
    assert [s.name for s in per_type.series] == ["zero-shot", "narrative-experts"]
    assert per_type.series[0].values == [0.0, 100.0, 100.0, 100.0] and per_type.error == "SEM"
    scores = tc.scores
    assert scores.columns[:3] == ["Run", "Model / method", "n"] and "spatiotemporal" in scores.columns
    col = scores.columns.index("spatiotemporal")
    assert scores.rows[0][col] == "0.800 ± 0.200"


def test_configuration_and_costs(report, report_runs):
    tc = report.sections[1]
    config = tc.configuration[0].table
    assert config.columns == ["Run", "Models", "Methods", "Seeds", "incanon", "Templates", "Created (UTC)"]
    assert [row[0] for row in config.rows] == report_runs["timechara"]
    assert "agent=scripted-agent, judge=scripted-judge" in config.rows[0][1]
    details = [b for b in tc.configuration[1:] if b.kind == "list"]
    assert any(item.startswith("template judge_spatiotemporal: ") for item in details[0].items)
    costs = tc.costs
    assert costs.rows[-1][0] == "total" and int(costs.rows[-1][4].replace(",", "")) == tc.usage.calls > 0
    assert report.usage.calls == sum(s.usage.calls for s in report.sections)


def test_demo_section(report):
    demo = report.sections[0]
    summary = _tables(demo)[0]
    assert summary.columns == ["Model / method", "future", "past-absence", "past-presence", "Avg."]
    assert summary.rows[0][-1] == "100.0 ± 0.0 (n=6)"
    answers = _tables(demo)[1]
    assert len(answers.rows) == 6 and {r[4] for r in answers.rows} == {"yes"}
    assert [c.title for c in demo.charts] == ["Spatiotemporal consistency by question type"]


def test_html_is_self_contained(report):
    html = render_html(report)
    assert html.startswith("<!DOCTYPE html>") and "<style>" in html
    assert "<th>Past-absence</th>" in html and "80.0 ± 20.0" in html and "Run configuration" in html
    images = re.findall(r'<img src="data:image/png;base64,([A-Za-z0-9+/=]+)"', html)
    assert len(images) == sum(len(s.charts) for s in report.sections) >= 5
    assert all(base64.b64decode(b).startswith(PNG) for b in images)
    assert not EXTERNAL.search(html)
    assert "<script" not in html.lower()


def test_markdown_has_the_tables_and_embedded_charts(report):
    text = render_markdown(report)
    assert "## TimeChara: point-in-time character hallucination (Table 5)" in text
    assert "| Model | Method | Future | Past-absence | Past-presence | Past-only | Avg. |" in text
    assert "### By question format" in text and "### Scores by run" in text and "### Usage and cost" in text
    assert "![Spatiotemporal consistency by data type](data:image/png;base64," in text
    assert "data:image" not in render_markdown(report, plots=False)


def test_write_report_is_atomic_and_picks_the_format(report, tmp_path):
    from incanon.errors import ConfigError

    html = write_report(report, tmp_path / "out" / "report.html", plots=False)
    md = write_report(report, tmp_path / "out" / "report.md", plots=False)
    assert html.read_text().startswith("<!DOCTYPE html>") and md.read_text().startswith("# incanon report")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["report.html", "report.md"]
    assert html.stat().st_mode & 0o777 == 0o644
    with pytest.raises(ConfigError, match="name it .html or .md"):
        write_report(report, tmp_path / "report.pdf")


def test_to_json_is_plain_data(report):
    import json

    doc = json.loads(json.dumps(report.to_json()))
    assert [s["benchmark"] for s in doc["sections"]] == ["demo", "timechara"]
    assert doc["usage"]["calls"] == report.usage.calls
    assert doc["sections"][1]["charts"][0]["kind"] == "bars"


def test_run_prefixes_and_duplicates_resolve_once(store, report_runs):
    first = report_runs["timechara"][0]
    again = build_report(store, [first[:15], first])
    assert [r.id for s in again.sections for r in s.runs] == [first]


def test_markdown_never_carries_raw_html_from_runs():
    from incanon.report.markdown import inert_html, table_md
    from incanon.report.model import Table

    hostile = '<script>alert(1)</script><img src=x onerror="steal()">'
    text = inert_html("\n".join(table_md(Table(columns=["model"], rows=[[hostile]]))))
    assert "<script" not in text and "<img" not in text and "&lt;script>" in text
