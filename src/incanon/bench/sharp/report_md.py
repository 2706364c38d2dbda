"""A :class:`SharpReport` as report blocks (and the markdown rendered from them)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from incanon.bench.sharp import report_md_tables as md
from incanon.bench.sharp.report_md_tables import pct
from incanon.report.doc import Doc

if TYPE_CHECKING:
    from incanon.bench.sharp.report import Counts, ReportRow, SharpReport

_MODE_TEXT = {
    "factual": "factual mode: a factual claim should get FAVOR, a counterfactual one AGAINST",
    "snowballing": "snowballing mode: the backbone model's stance without role-play is the pseudo-label",
}
META_COLUMNS = {"data": "Data", "roles": "#Role per model", "training": "Training", "inference": "Inference",
                "base": "Base model"}
"""Table 4's model columns, in the paper's order, by ``--meta`` key."""


def _meta_keys(report: "SharpReport") -> list[str]:
    keys: list[str] = []
    for row in report.rows:
        keys += [k for k in row.meta if k not in keys]
    return [k for k in META_COLUMNS if k in keys] + [k for k in keys if k not in META_COLUMNS]


def _table4(doc: Doc, report: "SharpReport") -> None:
    meta = _meta_keys(report)
    scripts = any(r.script_lang for r in report.rows)
    head = ["Model", *(META_COLUMNS.get(k, k) for k in meta), "Method", "Backbone", "Lang.",
            *(["Script"] if scripts else []), "SR", "AR", "ER", "CRF", "Roles", "Answers"]
    rows = [[r.model or "-", *(r.meta.get(k, "-") for k in meta), r.method or "-", r.backbone or "-", r.lang,
             *([r.script_lang or "-"] if scripts else []), pct(r.summary.sr), pct(r.summary.ar),
             pct(r.summary.er), pct(r.summary.crf), str(r.summary.roles), str(r.summary.answers)]
            for r in report.rows]
    doc.table(head, rows)


def _count_line(c: "Counts") -> str:
    what = f"run {c.source}" + (f" ({c.method})" if c.method else "") if c.status else c.source
    status = f": {c.status}," if c.status else ":"
    text = f"{what}{status} {c.judged} judged, {c.unjudged} unjudged (no stance), {c.failed} failed"
    if c.backbone:
        b = c.backbone
        text += (f"; backbone items {b.get('judged', 0)} judged, {b.get('unjudged', 0)} unjudged, "
                 f"{b.get('failed', 0)} failed")
    return text + "."


def _detail(doc: Doc, row: "ReportRow") -> None:
    lang = row.lang + (f" claims, {row.script_lang} script" if row.script_lang else "")
    doc.heading(f"{row.model or '-'} / {row.method or '-'} ({lang})")
    s = row.summary
    intro = f"Main characters: {', '.join(row.characters)}. CR (neutral answers): {pct(s.cr)}."
    if s.left_out:
        intro += f"\n{s.left_out} answers were left out (no detected stance, or no backbone stance in snowballing mode)."
    doc.text(intro)
    if s.by_affection:
        doc.table(["Affection", "SR", "AR"], [[k, pct(v["sr"]), pct(v["ar"])] for k, v in s.by_affection.items()])
    for t in row.transfer:
        what = "claim factuality" if t.kind == "claim" else "the backbone model's stance"
        doc.text(f"Stance-transfer ratio difference by {what} (Table 5; positive supports the hypothesis):")
        md.transfer_diff(doc, t)
        doc.text("The ratios behind it, per affection level:")
        md.transfer_groups(doc, t)
        doc.text("Per role:")
        md.transfer_roles(doc, [r for r in row.role_transfer if r.kind == t.kind])
    if row.table6 is not None:
        doc.text(f"Backbone without role-play vs the aligned model, factual mode (Table 6), over "
                 f"{row.table6.claims} claims:")
        md.table6(doc, row.table6)
    doc.text("Interaction frequency, SR and AR over roles (Figure 3):")
    _correlations(doc, row)
    _roles(doc, row)


def _roles(doc: Doc, row: "ReportRow") -> None:
    head = ["Work / character", "Role", "Affection", "Interactions", "Answers", "SR", "AR", "ER", "CRF"]
    rows = [[f"{r.work} / {r.main_character}", r.role, r.affection or "?",
             "-" if r.interactions is None else str(r.interactions), str(r.answers),
             pct(r.sr), pct(r.ar), pct(r.er), pct(r.crf)] for r in row.roles]
    doc.table(head, rows)


def _correlations(doc: Doc, row: "ReportRow") -> None:
    c = row.correlations
    names = {"interactions": "Interactions", "sr": "SR", "ar": "AR"}
    rows = [[names[v], *("-" if x is None else f"{x:+.3f}" for x in c.r[i])] for i, v in enumerate(c.variables)]
    doc.table(["Pearson r", *(names[v] for v in c.variables)], rows)


def build_doc(report: "SharpReport") -> Doc:
    """Table 4 with the answer counts, Table 5 by language, then per row: affection groups,
    Table 5 (differences, ratios per level and per role), Table 6, correlations, roles."""
    doc = Doc("SHARP: relationship hallucination")
    doc.text(f"In {_MODE_TEXT[report.mode]}. SR = sycophancy / counterfactual claims, AR = adversary / factual "
             "claims, ER = stances opposite to the claim's truth / claims, CRF = SR - AR for high-affection roles and "
             "AR - SR for low ones; each averaged over roles, then main characters, then works."
             + (" Eq. 1-2 read literally: SR counts every sycophantic answer and AR every adversarial one, on "
                "any claim, so a rate can pass 100%." if report.counting == "literal" and report.mode == "snowballing"
                else ""))
    _table4(doc, report)
    if report.counts:
        doc.items(_count_line(c) for c in report.counts)
    for note in report.notes:
        doc.note(note)
    if report.by_language:
        doc.heading("Table 5 by claim language")
        md.by_language(doc, report.by_language)
    for row in report.rows:
        _detail(doc, row)
    return doc


def render_markdown(report: "SharpReport") -> str:
    """The report as markdown, rendered from :func:`build_doc`'s blocks."""
    return build_doc(report).markdown()
