"""Tables 5 and 6 as report blocks (the transfer tables, per group, per role, per language;
backbone vs aligned), for :mod:`incanon.bench.sharp.report_md`."""

from __future__ import annotations

from typing import Sequence

from incanon.bench.sharp.tables import TABLE6_RATES, RoleTransfer, Table6
from incanon.bench.sharp.transfer import TransferTable
from incanon.report.doc import Doc

_MARK = {"sycophancy": "syc.", "adversary": "adv."}


def pct(value: float | None, signed: bool = False) -> str:
    """``21.04%`` (``+3.10%`` when signed), ``-`` for None."""
    if value is None:
        return "-"
    return f"{value * 100:+.2f}%" if signed else f"{value * 100:.2f}%"


def _corner(kind: str) -> str:
    return "Claim \\ Stance" if kind == "claim" else "Backbone \\ Role-play"


def _diff_cells(t: TransferTable, label: str) -> list[str]:
    cells = []
    for col in t.columns:
        kind, diff = t.cells[label][col], t.diff[label][col]
        cells.append("-" if kind is None else f"{'n/a' if diff is None else pct(diff, signed=True)} ({_MARK[kind]})")
    return cells


def transfer_diff(doc: Doc, t: TransferTable) -> None:
    """Table 5 as the paper prints it: D = high - low (sycophancy) or low - high (adversary)."""
    rows = [[label.capitalize(), *_diff_cells(t, label)] for label in t.rows]
    counts = ", ".join(f"{g}: {sum(t.counts[g].values())}" for g in ("high", "low"))
    doc.table([_corner(t.kind), *(c.capitalize() for c in t.columns)], rows)
    doc.text(f"Answers per affection group: {counts}.")


def transfer_groups(doc: Doc, t: TransferTable) -> None:
    """The ratios T(x -> y) behind the differences, one block of rows per affection level."""
    rows = []
    for group in ("high", "low"):
        for label in t.rows:
            ratios = t.ratios[group][label]
            rows.append([group, label.capitalize(), str(t.counts[group][label]),
                         *(pct(ratios[c]) for c in t.columns)])
    doc.table(["Affection", _corner(t.kind), "n", *(c.capitalize() for c in t.columns)], rows)


def transfer_roles(doc: Doc, tables: Sequence[RoleTransfer]) -> None:
    """The ratios T(x -> y) of each role."""
    if not tables:
        return
    columns = list(next(iter(tables[0].ratios.values())).keys())
    rows = []
    for t in tables:
        for label, ratios in t.ratios.items():
            rows.append([t.role, t.affection or "?", label.capitalize(), str(t.counts[label]),
                         *(pct(ratios[c]) for c in columns)])
    doc.table(["Role", "Affection", _corner(tables[0].kind), "n", *(c.capitalize() for c in columns)], rows)


def by_language(doc: Doc, tables: dict[str, list[TransferTable]]) -> None:
    """Table 5 with one column group per claim language, side by side (the paper's CN | EN)."""
    langs = list(tables)
    for kind in ("claim", "backbone"):
        present = {lang: next((t for t in tables[lang] if t.kind == kind), None) for lang in langs}
        first = next((t for t in present.values() if t is not None), None)
        if first is None:
            continue
        head = [_corner(kind)] + [f"{lang} {c.capitalize()}" for lang in langs for c in first.columns]
        rows = []
        for label in first.rows:
            cells = [label.capitalize()]
            for lang in langs:
                t = present[lang]
                cells += _diff_cells(t, label) if t is not None else ["n/a"] * len(first.columns)
            rows.append(cells)
        doc.text(f"By the {'claim' if kind == 'claim' else 'backbone'}'s reference, all rows pooled:")
        doc.table(head, rows)


def table6(doc: Doc, t: Table6) -> None:
    """Backbone vs aligned, factual mode, with aligned - backbone differences."""
    names = {"cr": "Csvt.", "er": "Error.", "sr": "Syco.", "ar": "Advs."}
    rows = [["Backbone", *(pct(t.backbone[k]) for k in TABLE6_RATES)],
            ["Aligned", *(pct(t.aligned[k]) for k in TABLE6_RATES)],
            ["Δ (aligned - backbone)", *(pct(t.delta[k], signed=True) for k in TABLE6_RATES)]]
    doc.table(["Model", *(names[k] for k in TABLE6_RATES)], rows)
