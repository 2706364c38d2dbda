"""RoleRAG: Table 1 (KE, KH, UQJ per model × method), general vs specific, in vs out of scope."""

from __future__ import annotations

from collections.abc import Sequence

from incanon.report.charts import bar_chart
from incanon.report.model import RunOverview, Series
from incanon.report.registry import SectionParts, register_section
from incanon.report.sections.common import report_blocks, row_labels
from incanon.runs import RunStore
from incanon.runs.records import SampleRecord


def _scope_and_kind(sample: SampleRecord) -> str | None:
    # Table 1 splits in- and out-of-scope questions, Tables 2-3 general and specific ones.
    x = sample.input
    return f"{x.get('scope', 'in')}-scope / {x.get('kind', 'specific')}"


@register_section("rolerag", title="RoleRAG: character knowledge and hallucination (Table 1)",
                  distributions=("ke", "kh", "uqj"), sample_type=_scope_and_kind)
def rolerag_section(store: RunStore, runs: Sequence[RunOverview]) -> SectionParts:
    from incanon.bench.rolerag import build_report, rows_from_runs
    from incanon.bench.rolerag.report import HEAD, METRICS

    report = build_report(rows_from_runs(store, [r.id for r in runs]))
    labels = row_labels([(r.model, r.method) for r in report.rows])
    metrics = bar_chart(
        "KE, KH and UQJ by method", [HEAD[m] for m in METRICS],
        [Series(name=label, values=[row.cells[m].mean for m in METRICS], errors=[row.cells[m].sem for m in METRICS])
         for label, row in zip(labels, report.rows)], y_label="judge score", error="SEM")
    kinds = sorted({r.group for r in report.by_kind if r.group})
    by_kind = bar_chart(
        "KE on general vs specific questions", kinds,
        [Series(name=label, values=[next((k.cells["ke"].mean for k in report.by_kind
                                          if (k.model, k.method, k.group) == (row.model, row.method, g)), None)
                                    for g in kinds])
         for label, row in zip(labels, report.rows)], y_label="KE", error="")
    return SectionParts(blocks=report_blocks(report),
                        charts=[c for c in (metrics, by_kind) if c is not None], data=report.model_dump(mode="json"))
