"""TimeChara: Table 5 (spatiotemporal consistency per data type, personality), breakdowns."""

from __future__ import annotations

from collections.abc import Sequence

from incanon.report.charts import bar_chart
from incanon.report.model import RunOverview, Series
from incanon.report.registry import SectionParts, register_section
from incanon.report.sections.common import report_blocks, row_labels
from incanon.runs import RunStore


@register_section("timechara", title="TimeChara: point-in-time character hallucination (Table 5)",
                  distributions=("spatiotemporal", "personality"))
def timechara_section(store: RunStore, runs: Sequence[RunOverview]) -> SectionParts:
    from incanon.bench.timechara import build_report, rows_from_runs
    from incanon.bench.timechara.items import DATA_TYPES
    from incanon.bench.timechara.report import HEADERS

    report = build_report(rows_from_runs(store, [r.id for r in runs]))
    labels = row_labels([(r.model, r.method) for r in report.rows])
    per_type = bar_chart(
        "Spatiotemporal consistency by data type", [HEADERS[t] for t in DATA_TYPES],
        [Series(name=label, values=[row.cells[t].mean for t in DATA_TYPES], errors=[row.cells[t].sem for t in DATA_TYPES])
         for label, row in zip(labels, report.rows)],
        y_label="% consistent", error="SEM", y_range=(0, 100))
    methods = bar_chart(
        "Methods compared: average spatiotemporal consistency", labels,
        [Series(name="Avg.", values=[r.cells["avg"].mean for r in report.rows],
                errors=[r.cells["avg"].sem for r in report.rows])],
        y_label="% consistent", error="SEM", y_range=(0, 100))
    personality = bar_chart(
        "Personality consistency (1-7)", labels,
        [Series(name="personality", values=[r.cells["personality"].mean for r in report.rows],
                errors=[r.cells["personality"].sem for r in report.rows])],
        y_label="score (1-7)", error="SEM", y_range=(1, 7))
    return SectionParts(blocks=report_blocks(report),
                        charts=[c for c in (per_type, methods, personality) if c is not None],
                        data=report.model_dump(mode="json"))
