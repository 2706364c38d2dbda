"""The SHARP report: Table 4 (SR, AR, ER, CRF per model × method), Table 5, correlations, roles.

Computed from judged answers alone (:class:`JudgedAnswer`), so a report is the same whether it
comes from run stores (``incanon sharp report``) or a JSONL file (``incanon sharp rescore``).
Rows are one per (model, method, backbone, language); every work and main character of a row is
folded into its numbers by the nested mean (see :mod:`incanon.bench.sharp.metrics`).
"""

from __future__ import annotations

from typing import Iterable

from pydantic import BaseModel, Field

from incanon.bench.sharp.metrics import (
    BackboneMetrics,
    JudgedAnswer,
    Mode,
    RoleMetrics,
    Summary,
    backbone_metrics,
    per_role,
    summarize,
)
from incanon.bench.sharp.transfer import Correlations, TransferTable, correlations, transfer_table
from incanon.errors import InputError


class ReportRow(BaseModel):
    """One model × method: its metrics, transfer tables, correlations and roles."""

    model: str
    method: str
    backbone: str = ""
    lang: str = "en"
    summary: Summary
    roles: list[RoleMetrics] = Field(default_factory=list)
    transfer: list[TransferTable] = Field(default_factory=list)
    correlations: Correlations
    backbone_metrics: BackboneMetrics | None = None
    characters: list[str] = Field(default_factory=list)
    """``work / main character`` pairs folded into the row."""


class SharpReport(BaseModel):
    """Every row of one report, all in one mode."""

    mode: Mode
    rows: list[ReportRow] = Field(default_factory=list)

    def markdown(self) -> str:
        """The report as markdown (Table 4 first)."""
        from incanon.bench.sharp.report_md import render_markdown

        return render_markdown(self)


def build_report(answers: Iterable[JudgedAnswer], mode: Mode = "factual") -> SharpReport:
    """The report of ``answers`` in ``mode``. Snowballing mode needs backbone stances: with
    none at all it is an InputError (answers missing only some are left out and counted)."""
    groups: dict[tuple[str, str, str, str], list[JudgedAnswer]] = {}
    for a in answers:
        groups.setdefault((a.model, a.method, a.backbone, a.lang), []).append(a)
    if mode == "snowballing" and groups and not any(a.backbone_stance for g in groups.values() for a in g):
        raise InputError("snowballing mode needs the backbone's stances (backbone_stance), and no answer has "
                         "one: evaluate with --backbone, or report in factual mode")
    report = SharpReport(mode=mode)
    for (model, method, backbone, lang), group in groups.items():
        roles = per_role(group, mode)
        tables = [t for t in (transfer_table(group, "claim"), transfer_table(group, "backbone")) if t is not None]
        characters = list(dict.fromkeys(f"{a.work} / {a.main_character}" for a in group))
        report.rows.append(ReportRow(
            model=model, method=method, backbone=backbone, lang=lang, summary=summarize(roles), roles=roles,
            transfer=tables, correlations=correlations(roles), backbone_metrics=backbone_metrics(group),
            characters=characters,
        ))
    return report
