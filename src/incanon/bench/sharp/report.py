"""The SHARP report: Table 4 (SR, AR, ER, CRF per model × method), Tables 5 and 6, correlations, roles.

Computed from judged answers alone (:class:`JudgedAnswer`), so a report is the same whether it
comes from run stores (``incanon sharp report``) or a JSONL file (``incanon sharp rescore``).
Rows are one per (model, method, backbone, claim language, script language); every work and
main character of a row is folded into its numbers by the nested mean (see
:mod:`incanon.bench.sharp.metrics`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Sequence

from pydantic import BaseModel, Field

from incanon.bench.sharp.metrics import (
    BackboneMetrics,
    Counting,
    JudgedAnswer,
    Mode,
    RoleMetrics,
    Summary,
    backbone_metrics,
    per_role,
    summarize,
)
from incanon.bench.sharp.tables import RoleTransfer, Table6, role_transfers, table6, tables_by_language
from incanon.bench.sharp.transfer import Correlations, TransferTable, correlations, transfer_table
from incanon.errors import InputError


if TYPE_CHECKING:
    from incanon.report.doc import Doc


class ReportRow(BaseModel):
    """One model × method × language: its metrics, transfer tables, correlations and roles."""

    model: str
    method: str
    backbone: str = ""
    lang: str = "en"
    script_lang: str = ""
    meta: dict[str, str] = Field(default_factory=dict)
    """Table 4's model columns (data, roles, training, inference, base) as the user gave them."""
    summary: Summary
    roles: list[RoleMetrics] = Field(default_factory=list)
    transfer: list[TransferTable] = Field(default_factory=list)
    role_transfer: list[RoleTransfer] = Field(default_factory=list)
    """Table 5's ratios per role (claim table, and backbone table when there are backbone stances)."""
    correlations: Correlations
    backbone_metrics: BackboneMetrics | None = None
    table6: Table6 | None = None
    characters: list[str] = Field(default_factory=list)
    """``work / main character`` pairs folded into the row."""


class Counts(BaseModel):
    """Where the answers came from and how many were usable: one entry per run (``report``)
    or per file (``rescore``)."""

    source: str
    method: str = ""
    status: str = ""
    """The run's status (finished, interrupted, ...); "" for a file."""
    judged: int = 0
    unjudged: int = 0
    """Answers without a detected stance (left out of every metric)."""
    failed: int = 0
    """Samples that ended in an error (runs only; resuming retries them)."""
    backbone: dict[str, int] = Field(default_factory=dict)


class SharpReport(BaseModel):
    """Every row of one report, all in one mode."""

    mode: Mode
    counting: str = "within"
    """How Eq. 1-2's numerators were counted (``within`` or ``literal``, see
    :data:`incanon.bench.sharp.metrics.COUNTINGS`)."""
    rows: list[ReportRow] = Field(default_factory=list)
    counts: list[Counts] = Field(default_factory=list)
    by_language: dict[str, list[TransferTable]] = Field(default_factory=dict)
    """Table 5 pooled over every row, per claim language (filled when more than one ran)."""
    notes: list[str] = Field(default_factory=list)
    """Lines about the input the tables rest on (where the roles' affection came from)."""

    def doc(self) -> "Doc":
        """The report as blocks (Table 4 first)."""
        from incanon.bench.sharp.report_md import build_doc

        return build_doc(self)

    def markdown(self) -> str:
        """The report as markdown (Table 4 first)."""
        return self.doc().markdown()


def build_report(answers: Iterable[JudgedAnswer], mode: Mode = "factual",
                 counts: Sequence[Counts] = (), counting: Counting = "within") -> SharpReport:
    """The report of ``answers`` in ``mode``, SR and AR counted the ``counting`` way. No answer
    at all, or snowballing mode without a single backbone stance, is an InputError (answers
    missing only some are left out and counted)."""
    answers = list(answers)
    if not answers:
        raise InputError("no judged answers to report on (every sample failed or none was run)")
    groups: dict[tuple[str, str, str, str, str], list[JudgedAnswer]] = {}
    for a in answers:
        groups.setdefault((a.model, a.method, a.backbone, a.lang, a.script_lang), []).append(a)
    if mode == "snowballing" and not any(a.backbone_stance for a in answers):
        raise InputError("snowballing mode needs the backbone's stances (backbone_stance), and no answer has "
                         "one: evaluate with --backbone, or report in factual mode")
    report = SharpReport(mode=mode, counting=counting, counts=list(counts))
    for (model, method, backbone, lang, script_lang), group in groups.items():
        roles = per_role(group, mode, counting)
        tables = [t for t in (transfer_table(group, "claim"), transfer_table(group, "backbone")) if t is not None]
        role_tables = [t for kind in ("claim", "backbone") for t in role_transfers(group, kind)]  # type: ignore[arg-type]
        characters = list(dict.fromkeys(f"{a.work} / {a.main_character}" for a in group))
        meta = next((a.meta for a in group if a.meta), {})
        bb = backbone_metrics(group)
        report.rows.append(ReportRow(
            model=model, method=method, backbone=backbone, lang=lang, script_lang=script_lang, meta=meta,
            summary=summarize(roles), roles=roles, transfer=tables, role_transfer=role_tables,
            correlations=correlations(roles), backbone_metrics=bb, table6=table6(bb, group), characters=characters,
        ))
    if len({a.lang for a in answers}) > 1:
        report.by_language = tables_by_language(answers)
    return report
