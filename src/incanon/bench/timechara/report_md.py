"""Markdown rendering of a :class:`TimeCharaReport`."""

from __future__ import annotations

from incanon.bench.timechara.items import DATA_TYPES
from incanon.bench.timechara.report import COLUMNS, HEADERS, TableRow, TimeCharaReport


def _cell(row: TableRow, column: str) -> str:
    return row.cells[column].text(2 if column == "personality" else 1)


def _table(rows: list[TableRow], group: str | None = None) -> list[str]:
    head = ["Model", "Method"] + ([group] if group else []) + [HEADERS[c] for c in COLUMNS] + ["n"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        values = [row.model, row.method] + ([row.group or "-"] if group else [])
        values += [_cell(row, c) for c in COLUMNS] + [str(row.items)]
        lines.append("| " + " | ".join(v.replace("|", "\\|") for v in values) + " |")
    return lines


def render_markdown(report: TimeCharaReport) -> str:
    """Table 5, then the breakdowns and the hallucination types."""
    lines = [
        "## TimeChara: point-in-time character hallucination",
        "",
        f"{report.items} judged items. Spatiotemporal consistency in % (mean ± SEM); past-presence "
        "and past-absence items count only when both the temporal and the spatial judge accept "
        "the answer. Personality consistency on the 1-7 scale.",
        "",
        *_table(report.rows),
    ]
    for breakdown in report.breakdowns:
        if len({r.group for r in breakdown.rows}) <= 1:
            continue
        lines += ["", f"### By {breakdown.name}", "", *_table(breakdown.rows, breakdown.name.capitalize())]
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
