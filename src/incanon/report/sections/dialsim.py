"""DialSim: Tables 3-4 (accuracy ± std over runs, with and without a time limit), per question
type, answer times."""

from __future__ import annotations

from collections.abc import Sequence

from incanon.report.charts import bar_chart
from incanon.report.model import RunOverview, Series
from incanon.report.registry import SectionParts, register_section
from incanon.report.sections.common import report_blocks, pct
from incanon.runs import RunStore
from incanon.runs.records import SampleRecord


def _label(setting) -> str:
    limit = f", {setting.time_limit:g}s" if setting.time_limit > 0 else ", no limit"
    names = f", {setting.names} names" if setting.names else ""
    return f"{setting.model} / {setting.memory}{limit}{names}"


def _question_category(sample: SampleRecord) -> str | None:
    # A sample is a session; its question (if one was asked) has the table's category.
    question = (sample.outputs or {}).get("question")
    return question.get("category") if isinstance(question, dict) else None


@register_section("dialsim", title="DialSim: real-time dialogue memory (Tables 3-4)", distributions=False,
                  sample_type=_question_category)
def dialsim_section(store: RunStore, runs: Sequence[RunOverview]) -> SectionParts:
    from incanon.bench.dialsim import CATEGORIES, DialsimReport, settings_from_runs

    report = DialsimReport(settings=settings_from_runs(store, [r.id for r in runs]))
    labels = [_label(s) for s in report.settings]
    accuracy = bar_chart(
        "Accuracy by model and memory", labels,
        [Series(name="accuracy", values=[pct(s.mean) for s in report.settings],
                errors=[pct(s.std) for s in report.settings])],
        y_label="% correct", error="std over runs", y_range=(0, 100))
    by_type = bar_chart(
        "Accuracy by question type", list(CATEGORIES),
        [Series(name=label, values=[pct(s.by_category[c].accuracy) if c in s.by_category else None for c in CATEGORIES])
         for label, s in zip(labels, report.settings)], y_label="% correct", y_range=(0, 100))
    return SectionParts(blocks=report_blocks(report), charts=[c for c in (accuracy, by_type) if c is not None],
                        data=report.model_dump(mode="json"))
