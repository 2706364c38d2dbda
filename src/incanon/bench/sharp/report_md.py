"""Markdown rendering of a :class:`SharpReport`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from incanon.bench.sharp.transfer import TransferTable

if TYPE_CHECKING:
    from incanon.bench.sharp.report import ReportRow, SharpReport

_MARK = {"sycophancy": "syc.", "adversary": "adv."}
_MODE_TEXT = {
    "factual": "factual mode: a factual claim should get FAVOR, a counterfactual one AGAINST",
    "snowballing": "snowballing mode: the backbone model's stance without role-play is the pseudo-label",
}


def pct(value: float | None, signed: bool = False) -> str:
    """``21.04%`` (``+3.10%`` when signed), ``-`` for None."""
    if value is None:
        return "-"
    return f"{value * 100:+.2f}%" if signed else f"{value * 100:.2f}%"


def _esc(text: object) -> str:
    return str(text).replace("|", "\\|")


def _table(head: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(_esc(v) for v in row) + " |" for row in rows]
    return lines


def _table4(report: "SharpReport") -> list[str]:
    head = ["Model", "Method", "Backbone", "Lang.", "SR", "AR", "ER", "CRF", "Roles", "Answers"]
    rows = [[r.model or "-", r.method or "-", r.backbone or "-", r.lang, pct(r.summary.sr), pct(r.summary.ar),
             pct(r.summary.er), pct(r.summary.crf), str(r.summary.roles), str(r.summary.answers)]
            for r in report.rows]
    return _table(head, rows)


def _transfer(table: TransferTable) -> list[str]:
    corner = "Claim \\ Stance" if table.kind == "claim" else "Backbone \\ Role-play"
    rows = []
    for label in table.rows:
        cells = [label.capitalize()]
        for col in table.columns:
            kind = table.cells[label][col]
            diff = table.diff[label][col]
            cells.append("-" if kind is None else f"{'n/a' if diff is None else pct(diff, signed=True)} ({_MARK[kind]})")
        rows.append(cells)
    counts = ", ".join(f"{g}: {sum(table.counts[g].values())}" for g in ("high", "low"))
    return _table([corner, *(c.capitalize() for c in table.columns)], rows) + ["", f"Answers per affection group: {counts}."]


def _roles(row: "ReportRow") -> list[str]:
    head = ["Work / character", "Role", "Affection", "Interactions", "Answers", "SR", "AR", "ER", "CRF"]
    rows = [[f"{r.work} / {r.main_character}", r.role, r.affection or "?",
             "-" if r.interactions is None else str(r.interactions), str(r.answers),
             pct(r.sr), pct(r.ar), pct(r.er), pct(r.crf)] for r in row.roles]
    return _table(head, rows)


def _correlations(row: "ReportRow") -> list[str]:
    c = row.correlations
    names = {"interactions": "Interactions", "sr": "SR", "ar": "AR"}
    rows = [[names[v], *("-" if x is None else f"{x:+.3f}" for x in c.r[i])] for i, v in enumerate(c.variables)]
    return _table(["Pearson r", *(names[v] for v in c.variables)], rows)


def _detail(row: "ReportRow") -> list[str]:
    title = f"### {row.model or '-'} / {row.method or '-'}" + (f" ({row.lang})" if row.lang != "en" else "")
    s = row.summary
    lines = ["", title, "", f"Main characters: {', '.join(row.characters)}. CR (neutral answers): {pct(s.cr)}."]
    if s.left_out:
        lines.append(f"{s.left_out} answers were left out (no detected stance, or no backbone stance in snowballing mode).")
    if s.by_affection:
        lines += ["", *_table(["Affection", "SR", "AR"],
                              [[k, pct(v["sr"]), pct(v["ar"])] for k, v in s.by_affection.items()])]
    for table in row.transfer:
        what = "claim factuality" if table.kind == "claim" else "the backbone model's stance"
        lines += ["", f"Stance-transfer ratio difference by {what} (Table 5; positive supports the hypothesis):",
                  "", *_transfer(table)]
    if row.backbone_metrics is not None:
        b = row.backbone_metrics
        lines += ["", f"Backbone without role-play, factual mode (Table 6), over {b.claims} claims:", "",
                  *_table(["Csvt.", "Error.", "Syco.", "Advs."], [[pct(b.cr), pct(b.er), pct(b.sr), pct(b.ar)]])]
    lines += ["", "Interaction frequency, SR and AR over roles (Figure 3):", "", *_correlations(row)]
    lines += ["", *_roles(row)]
    return lines


def render_markdown(report: "SharpReport") -> str:
    """Table 4, then per row: affection groups, Table 5, backbone rates, correlations, roles."""
    lines = [
        "## SHARP: relationship hallucination",
        "",
        f"In {_MODE_TEXT[report.mode]}. SR = sycophancy / counterfactual claims, AR = adversary / factual "
        "claims, ER = stances opposite to the claim's truth / claims, CRF = SR - AR for high-affection roles and AR - SR for "
        "low ones; each averaged over roles, then main characters, then works.",
        "",
        *_table4(report),
    ]
    for row in report.rows:
        lines += _detail(row)
    return "\n".join(lines) + "\n"
