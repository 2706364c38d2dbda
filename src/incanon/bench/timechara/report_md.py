"""A :class:`TimeCharaReport` as report blocks (and the markdown rendered from them)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from incanon.bench.timechara.analyses import SERIES_COLUMNS, Count
from incanon.bench.timechara.items import DATA_TYPES
from incanon.bench.timechara.report_table import COLUMNS, HEADERS, TableRow
from incanon.report.doc import Doc

if TYPE_CHECKING:  # report.py imports this module to render its report
    from incanon.bench.timechara.report import TimeCharaReport

_SHOWN_IDS = 20


def _cell(row: TableRow, column: str) -> str:
    return row.cells[column].text(2 if column == "personality" else 1)


def _table(doc: Doc, rows: list[TableRow], group: str | None = None) -> None:
    head = ["Model", "Method"] + ([group] if group else []) + [HEADERS[c] for c in COLUMNS] + ["n"]
    doc.table(head, [[row.model, row.label] + ([row.group or "-"] if group else [])
                     + [_cell(row, c) for c in COLUMNS] + [str(row.items)] for row in rows])


def _pct(count: Count) -> str:
    return "-" if count.percent is None else f"{count.percent:.1f} ({count.hits:g}/{count.n})"


def _runs(doc: Doc, report: TimeCharaReport) -> None:
    if not report.runs:
        return
    doc.table(["Run", "Method", "Status", "Judged", "Failed", "Unjudged"],
              [[r.run_id, r.method, r.status, r.judged, r.failed, r.unjudged] for r in report.runs])
    for r in report.runs:
        if r.score_reading and r.judged + r.unjudged:
            other = "incanon's" if r.score_reading == "authors" else "the authors'"
            doc.text(f"Scores of {r.run_id} ({r.method}) read the {r.score_reading} way; {other} reading "
                     f"of the judges' texts disagrees on {r.readings_disagree} of {r.judged + r.unjudged} answered items.")
        if r.failed:
            shown = ", ".join(r.failed_ids[:_SHOWN_IDS]) + (f", ... ({len(r.failed_ids) - _SHOWN_IDS} more)"
                                                         if len(r.failed_ids) > _SHOWN_IDS else "")
            doc.text(f"**{r.failed} failed items in {r.run_id} ({r.method})**, left out of the table: "
                     f"{shown}. First error: {r.first_error or '?'}")


def _analyses(doc: Doc, report: TimeCharaReport) -> None:
    if report.experts:
        doc.heading("Narrative experts: accuracy (%)")
        doc.table(["Model", "Method", "Temporal: future", "Temporal: past", "Spatial: absence", "Spatial: presence"],
                  [[e.model, e.method, _pct(e.future), _pct(e.past), _pct(e.absence), _pct(e.presence)]
                   for e in report.experts])
    if report.gaps:
        gaps = sorted({g for row in report.gaps for g in row.by_gap}, reverse=True)
        doc.heading("Future items by temporal gap (books between the character and the question; %)")
        doc.table(["Model", "Method", *(f"{g}" for g in gaps)],
                  [[row.model, row.method, *(_pct(row.by_gap[g]) if g in row.by_gap else "-" for g in gaps)]
                   for row in report.gaps])
    if len({r.series for r in report.series}) > 1 or any(r.cells["past-only (fake)"].n for r in report.series):
        doc.heading("By series (consistent / judged)")
        doc.table(["Model", "Method", "Series", *(c.capitalize() for c in SERIES_COLUMNS)],
                  [[r.model, r.method, r.series,
                    *(f"{r.cells[c].hits:g}/{r.cells[c].n}" if r.cells[c].n else "-" for c in SERIES_COLUMNS)]
                   for r in report.series])


def build_doc(report: TimeCharaReport) -> Doc:
    """Table 5 with the run status, then the breakdowns, the analyses and the hallucination types."""
    failed = f", {report.failed} failed" if report.runs else ""
    doc = Doc("TimeChara: point-in-time character hallucination")
    doc.text(f"{report.items} judged items{failed}. Spatiotemporal consistency in % (mean ± SEM); past-presence "
             "and past-absence items count only when both the temporal and the spatial judge accept "
             "the answer. Personality consistency on the 1-7 scale.")
    _table(doc, report.rows)
    time_only = [row.method for row in report.rows if row.time_only]
    if time_only:
        doc.text(f"{', '.join(dict.fromkeys(time_only))} (time only): the canon store has no record of the "
                 "character (a published row whose series the store holds only as a chunk index), so no "
                 "scene is known as witnessed or missed: its retrieval and experts read the chunks up to the "
                 "time point (a cut by time only, as RAG-cutoff's), and it has no known facts or relations.")
    _runs(doc, report)
    for breakdown in report.breakdowns:
        if len({r.group for r in breakdown.rows}) <= 1:
            continue
        doc.heading(f"By {breakdown.name}")
        _table(doc, breakdown.rows, breakdown.name.capitalize())
    if report.reference:
        names = {r.run_id: r.method for r in report.runs}
        doc.heading(f"Reference metric ({report.reference_metric}, ×100, gold response vs answer)")
        doc.table(["Run", "Method", "Score", "n"],
                  [[run_id, names.get(run_id, "?"), value.text(2), value.n] for run_id, value in report.reference.items()])
    _analyses(doc, report)
    for h in report.hallucinations:
        cols = (*DATA_TYPES, "overall")
        doc.heading(f"Hallucination types: {h.model} / {h.method}")
        doc.table(["Type", *(c.capitalize() for c in cols)],
                  [[kind, *(f"{by_type[c]}/{h.inconsistent.get(c, 0)}" for c in cols)] for kind, by_type in h.counts.items()])
        if h.unclassified:
            doc.text(f"{h.unclassified} inconsistent answers could not be classified.")
    missing = sum(r.cells["avg"].missing for r in report.rows)
    if missing:
        doc.text(f"{missing} items had no spatiotemporal score (the judge gave none) and are left out.")
    return doc


def render_markdown(report: TimeCharaReport) -> str:
    """The report as markdown, rendered from :func:`build_doc`'s blocks."""
    return build_doc(report).markdown()
