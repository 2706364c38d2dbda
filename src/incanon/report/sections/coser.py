"""CoSER given-circumstance acting: Table 2 (four judged dimensions, average, BLEU, ROUGE-L)."""

from __future__ import annotations

from collections.abc import Sequence

from incanon.report.charts import bar_chart
from incanon.report.model import RunOverview, Series
from incanon.report.sections.common import report_blocks
from incanon.report.registry import SectionParts, register_section
from incanon.runs import RunStore
from incanon.runs.records import SampleRecord


def _domain(sample: SampleRecord) -> str | None:
    return sample.input.get("domain")


@register_section("coser", title="CoSER: given-circumstance acting (Table 2)", benchmarks=("coser-gca", "coser-judge"),
                  sample_type=_domain)
def coser_section(store: RunStore, runs: Sequence[RunOverview]) -> SectionParts:
    from incanon.bench.coser.report import report_from_runs
    from incanon.bench.coser.scoring import DIMENSIONS

    report = report_from_runs(store, [r.id for r in runs])
    rows = [r for r in report.rows if "all" in r.splits]
    dims = bar_chart(
        "Judged dimensions by model", [*DIMENSIONS, "Average"],
        [Series(name=r.label, values=[*(r.splits["all"].dimensions.get(d) for d in DIMENSIONS), r.splits["all"].average])
         for r in rows], y_label="score (0-100)", y_range=(0, 100))
    overlap = bar_chart(
        "Overlap with the original conversation", ["BLEU", "ROUGE-L"],
        [Series(name=r.label, values=[r.splits["all"].bleu, r.splits["all"].rouge_l]) for r in rows],
        y_label="score (0-100)")
    return SectionParts(blocks=report_blocks(report), charts=[c for c in (dims, overlap) if c is not None],
                        data=report.model_dump(mode="json"))
