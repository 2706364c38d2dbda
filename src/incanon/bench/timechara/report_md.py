"""Markdown rendering of a :class:`TimeCharaReport`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from incanon.bench.timechara.analyses import SERIES_COLUMNS, Count
from incanon.bench.timechara.items import DATA_TYPES
from incanon.bench.timechara.report_table import COLUMNS, HEADERS, TableRow

if TYPE_CHECKING:  # report.py imports this module to render its report
    from incanon.bench.timechara.report import TimeCharaReport

_SHOWN_IDS = 20


def _cell(row: TableRow, column: str) -> str:
    return row.cells[column].text(2 if column == "personality" else 1)


def _esc(value: str) -> str:
    return value.replace("|", "\\|")


def _table(rows: list[TableRow], group: str | None = None) -> list[str]:
    head = ["Model", "Method"] + ([group] if group else []) + [HEADERS[c] for c in COLUMNS] + ["n"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        values = [row.model, row.method] + ([row.group or "-"] if group else [])
        values += [_cell(row, c) for c in COLUMNS] + [str(row.items)]
        lines.append("| " + " | ".join(_esc(v) for v in values) + " |")
    return lines


def _pct(count: Count) -> str:
    return "-" if count.percent is None else f"{count.percent:.1f} ({count.hits:g}/{count.n})"


def _runs(report: TimeCharaReport) -> list[str]:
    if not report.runs:
        return []
    lines = ["", "| Run | Method | Status | Judged | Failed | Unjudged |", "|---|---|---|---|---|---|"]
    for r in report.runs:
        lines.append(f"| {r.run_id} | {_esc(r.method)} | {r.status} | {r.judged} | {r.failed} | {r.unjudged} |")
    for r in report.runs:
        if r.failed:
            shown = ", ".join(r.failed_ids[:_SHOWN_IDS]) + (f", ... ({len(r.failed_ids) - _SHOWN_IDS} more)"
                                                         if len(r.failed_ids) > _SHOWN_IDS else "")
            lines += ["", f"**{r.failed} failed items in {r.run_id} ({_esc(r.method)})**, left out of the table: "
                          f"{shown}. First error: {_esc(r.first_error or '?')}"]
    return lines


def _analyses(report: TimeCharaReport) -> list[str]:
    lines: list[str] = []
    if report.experts:
        lines += ["", "### Narrative experts: accuracy (%)", "",
                  "| Model | Method | Temporal: future | Temporal: past | Spatial: absence | Spatial: presence |",
                  "|---|---|---|---|---|---|"]
        for e in report.experts:
            lines.append(f"| {_esc(e.model)} | {_esc(e.method)} | {_pct(e.future)} | {_pct(e.past)} | "
                         f"{_pct(e.absence)} | {_pct(e.presence)} |")
    if report.gaps:
        gaps = sorted({g for row in report.gaps for g in row.by_gap}, reverse=True)
        lines += ["", "### Future items by temporal gap (books between the character and the question; %)", "",
                  "| Model | Method | " + " | ".join(f"{g}" for g in gaps) + " |", "|---|---|" + "---|" * len(gaps)]
        for row in report.gaps:
            cells = [_pct(row.by_gap[g]) if g in row.by_gap else "-" for g in gaps]
            lines.append(f"| {_esc(row.model)} | {_esc(row.method)} | " + " | ".join(cells) + " |")
    if len({r.series for r in report.series}) > 1 or any(r.cells["past-only (fake)"].n for r in report.series):
        lines += ["", "### By series (consistent / judged)", "",
                  "| Model | Method | Series | " + " | ".join(c.capitalize() for c in SERIES_COLUMNS) + " |",
                  "|---|---|---|" + "---|" * len(SERIES_COLUMNS)]
        for r in report.series:
            cells = [f"{r.cells[c].hits:g}/{r.cells[c].n}" if r.cells[c].n else "-" for c in SERIES_COLUMNS]
            lines.append(f"| {_esc(r.model)} | {_esc(r.method)} | {_esc(r.series)} | " + " | ".join(cells) + " |")
    return lines


def render_markdown(report: TimeCharaReport) -> str:
    """Table 5 with the run status, then the breakdowns, the analyses and the hallucination types."""
    failed = f", {report.failed} failed" if report.runs else ""
    lines = [
        "## TimeChara: point-in-time character hallucination",
        "",
        f"{report.items} judged items{failed}. Spatiotemporal consistency in % (mean ± SEM); past-presence "
        "and past-absence items count only when both the temporal and the spatial judge accept "
        "the answer. Personality consistency on the 1-7 scale.",
        "",
        *_table(report.rows),
        *_runs(report),
    ]
    for breakdown in report.breakdowns:
        if len({r.group for r in breakdown.rows}) <= 1:
            continue
        lines += ["", f"### By {breakdown.name}", "", *_table(breakdown.rows, breakdown.name.capitalize())]
    if report.reference:
        names = {r.run_id: r.method for r in report.runs}
        lines += ["", f"### Reference metric ({_esc(report.reference_metric)}, ×100, gold response vs answer)", "",
                  "| Run | Method | Score | n |", "|---|---|---|---|"]
        for run_id, value in report.reference.items():
            lines.append(f"| {run_id} | {_esc(names.get(run_id, '?'))} | {value.text(2)} | {value.n} |")
    lines += _analyses(report)
    for h in report.hallucinations:
        cols = (*DATA_TYPES, "overall")
        lines += ["", f"### Hallucination types: {h.model} / {h.method}", "",
                  "| Type | " + " | ".join(c.capitalize() for c in cols) + " |", "|" + "---|" * (len(cols) + 1)]
        for kind, by_type in h.counts.items():
            lines.append(f"| {kind} | " + " | ".join(f"{by_type[c]}/{h.inconsistent.get(c, 0)}" for c in cols) + " |")
        if h.unclassified:
            lines.append(f"\n{h.unclassified} inconsistent answers could not be classified.")
    missing = sum(r.cells["avg"].missing for r in report.rows)
    if missing:
        lines += ["", f"{missing} items had no spatiotemporal score (the judge gave none) and are left out."]
    return "\n".join(lines) + "\n"
