"""SHARP: Table 4 (SR, AR, ER, CRF per model × method), stance-transfer tables, correlations."""

from __future__ import annotations

from collections.abc import Sequence

from incanon.report.charts import bar_chart
from incanon.report.model import Block, RunOverview, Series
from incanon.report.registry import SectionParts, register_section
from incanon.report.sections.common import report_blocks, pct, row_labels
from incanon.runs import RunStore
from incanon.runs.records import SampleRecord

METRICS = (("sr", "SR"), ("ar", "AR"), ("er", "ER"), ("crf", "CRF"))


def _role_and_claim(sample: SampleRecord) -> str | None:
    # Table 4 splits by affection and by factual / counterfactual claim.
    x = sample.input
    label = (x.get("claim") or {}).get("label")
    who = "backbone" if x.get("kind") == "backbone" else f"{x.get('affection') or 'unknown'} affection"
    return f"{who} / {label}" if label else who


@register_section("sharp", title="SHARP: relationship hallucination (Table 4)", sample_type=_role_and_claim)
def sharp_section(store: RunStore, runs: Sequence[RunOverview]) -> SectionParts:
    from incanon.bench.sharp import answers_from_runs, build_report, run_mode

    # Runs evaluated in different modes cannot share a table: one report per mode.
    by_mode: dict[str, list[str]] = {}
    for run in runs:
        by_mode.setdefault(run_mode(store, run.id), []).append(run.id)
    parts = SectionParts()
    for mode, ids in by_mode.items():
        report = build_report(answers_from_runs(store, ids), mode)  # type: ignore[arg-type]
        if len(by_mode) > 1:
            parts.blocks.append(Block(kind="heading", text=f"{mode.capitalize()} mode", level=3))
        parts.blocks += report_blocks(report)
        labels = row_labels([(r.model or "-", r.method or "-") for r in report.rows])
        chart = bar_chart(
            f"SR, AR, ER and CRF by method ({mode} mode)", [name for _, name in METRICS],
            [Series(name=label, values=[pct(getattr(row.summary, key)) for key, _ in METRICS])
             for label, row in zip(labels, report.rows)], y_label="%")
        if chart is not None:
            parts.charts.append(chart)
        parts.data[mode] = report.model_dump(mode="json")
    return parts
