"""The TimeChara report in the paper's Table 5 layout, with its breakdowns.

Rows are model × method; columns the spatiotemporal consistency per data type and on average
(% ± SEM, SEM = sample standard deviation / √n) and personality consistency (1-7 ± SEM). The
average is over items (not over the four columns), as in the paper. Breakdowns: per series,
structured vs free-form, fact vs fake, and the hallucination-type distribution of inconsistent
answers (Table 25).
"""

from __future__ import annotations

from collections import Counter
from typing import Callable, Iterable

from pydantic import BaseModel, Field

from incanon.bench.timechara.analyses import (
    ExpertAccuracy,
    GapRow,
    SeriesRow,
    expert_accuracy,
    series_table,
    temporal_gaps,
)
from incanon.bench.timechara.items import DATA_TYPES
from incanon.bench.timechara.judged import JudgedRow, RunSummary
from incanon.bench.timechara.report_md import build_doc, render_markdown
from incanon.report.doc import Doc
from incanon.bench.timechara.report_table import COLUMNS, HEADERS, Stat, TableRow, stat  # noqa: F401 (re-exported)
from incanon.judges.hallucination import HallucinationType

METHOD_ORDER = ("zero-shot", "zero-shot-cot", "few-shot", "self-refine", "rag", "rag-cutoff",
                "narrative-experts", "narrative-experts-rag-cutoff")
class Breakdown(BaseModel):
    """The same table split by one property of the items."""

    name: str
    rows: list[TableRow]


class HallucinationCounts(BaseModel):
    """Table 25 for one model × method: type → data type → count of inconsistent answers."""

    model: str
    method: str
    inconsistent: dict[str, int]
    """Data type (and ``overall``) → inconsistent answers."""
    counts: dict[str, dict[str, int]]
    unclassified: int = 0


class TimeCharaReport(BaseModel):
    """Everything the report shows, as data."""

    items: int
    rows: list[TableRow]
    breakdowns: list[Breakdown] = Field(default_factory=list)
    hallucinations: list[HallucinationCounts] = Field(default_factory=list)
    runs: list[RunSummary] = Field(default_factory=list)
    """Per run: status and judged / failed / unjudged counts with the failed ids (from runs)."""
    experts: list[ExpertAccuracy] = Field(default_factory=list)
    gaps: list[GapRow] = Field(default_factory=list)
    series: list[SeriesRow] = Field(default_factory=list)
    reference: dict[str, Stat] = Field(default_factory=dict)
    """Run id → reference-based metric ×100 (AlignScore's column), when one was asked for."""
    reference_metric: str = ""

    @property
    def failed(self) -> int:
        """Items that failed in the runs behind the report."""
        return sum(r.failed for r in self.runs)

    def doc(self) -> Doc:
        """The report as blocks (what the combined report shows)."""
        return build_doc(self)

    def markdown(self) -> str:
        """The report as markdown tables."""
        return render_markdown(self)


def _order(rows: list[JudgedRow]) -> list[tuple[str, str]]:
    models = list(dict.fromkeys(r.model for r in rows))
    rank = {m: i for i, m in enumerate(METHOD_ORDER)}
    methods = sorted(dict.fromkeys(r.method for r in rows), key=lambda m: (rank.get(m, len(rank)), m))
    present = {(r.model, r.method) for r in rows}
    return [(mo, me) for mo in models for me in methods if (mo, me) in present]


def table_row(model: str, method: str, rows: list[JudgedRow], group: str | None = None) -> TableRow:
    """The cells of one row from its judged items."""
    cells = {t: stat([r.spatiotemporal for r in rows if r.data_type == t], 100.0) for t in DATA_TYPES}
    cells["avg"] = stat([r.spatiotemporal for r in rows], 100.0)
    cells["personality"] = stat([r.personality_score for r in rows])
    return TableRow(model=model, method=method, group=group, items=len(rows), cells=cells,
                    time_only=sum(1 for r in rows if r.witnessed_only is False))


def _grouped(rows: list[JudgedRow], name: str, key: Callable[[JudgedRow], str]) -> Breakdown:
    out = []
    for model, method in _order(rows):
        mine = [r for r in rows if r.model == model and r.method == method]
        for group in sorted(dict.fromkeys(key(r) for r in mine)):
            out.append(table_row(model, method, [r for r in mine if key(r) == group], group))
    return Breakdown(name=name, rows=out)


def _hallucinations(rows: list[JudgedRow]) -> list[HallucinationCounts]:
    out = []
    for model, method in _order(rows):
        bad = [r for r in rows if r.model == model and r.method == method and r.spatiotemporal == 0]
        if not any(r.hallucination_type for r in bad):
            continue
        inconsistent = dict(Counter(r.data_type for r in bad)) | {"overall": len(bad)}
        counts = {t.value: {dt: 0 for dt in (*DATA_TYPES, "overall")} for t in HallucinationType}
        for r in bad:
            if r.hallucination_type in counts:
                counts[r.hallucination_type][r.data_type] += 1
                counts[r.hallucination_type]["overall"] += 1
        unclassified = sum(1 for r in bad if r.hallucination_type not in counts)
        out.append(HallucinationCounts(model=model, method=method, inconsistent=inconsistent,
                                       counts=counts, unclassified=unclassified))
    return out


def build_report(judged: Iterable[JudgedRow], runs: Iterable[RunSummary] = ()) -> TimeCharaReport:
    """The full report from judged rows (and, from a run store, what happened to each run)."""
    rows = list(judged)
    main = [table_row(mo, me, [r for r in rows if r.model == mo and r.method == me]) for mo, me in _order(rows)]
    breakdowns = [
        _grouped(rows, "question format", lambda r: "structured" if r.question_generation == "fact_structured" else "free-form"),
        _grouped(rows, "fact vs fake", lambda r: "fake" if r.question_generation == "fake_freeform" else "fact"),
    ]
    return TimeCharaReport(items=len(rows), rows=main, breakdowns=breakdowns, hallucinations=_hallucinations(rows),
                           runs=list(runs), experts=expert_accuracy(rows), gaps=temporal_gaps(rows),
                           series=series_table(rows))
