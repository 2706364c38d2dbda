"""The paper's remaining tables, computed from judged answers.

* Table 5 per role and per affection level: the raw stance-transfer ratios T(x -> y) of each
  role (and of each affection group, already in :class:`TransferTable.ratios`), next to the
  high-minus-low differences Table 5 prints;
* Table 5 by language: the difference table pooled over every row of a report, one column group
  per claim language (the paper's CN | EN halves), when more than one language ran;
* Table 6: the backbone without role-play against the aligned (role-playing) model, both in
  factual mode, with the differences aligned - backbone of the conservative (neutral), error,
  sycophancy and adversary rates.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Sequence

from pydantic import BaseModel, Field

from incanon.bench.sharp.metrics import BackboneMetrics, JudgedAnswer, Summary, per_role, summarize
from incanon.bench.sharp.transfer import COLUMNS, TableKind, TransferTable, _ref, _rows, transfer_table

TABLE6_RATES = ("cr", "er", "sr", "ar")
"""Table 6's columns: Csvt. (conservative: NEUTRAL answers), Error., Syco., Advs."""


class RoleTransfer(BaseModel):
    """One role's stance-transfer ratios: reference row → answered stance → share."""

    work: str
    main_character: str
    role: str
    affection: str | None = None
    kind: TableKind
    ratios: dict[str, dict[str, float | None]] = Field(default_factory=dict)
    counts: dict[str, int] = Field(default_factory=dict)
    """Row → answers with that reference."""


def role_transfers(answers: Sequence[JudgedAnswer], kind: TableKind) -> list[RoleTransfer]:
    """:class:`RoleTransfer` of every role with at least one usable answer, in first-seen order."""
    groups: dict[tuple[str, str, str], list[JudgedAnswer]] = defaultdict(list)
    for a in answers:
        if a.stance is not None and _ref(a, kind) is not None:
            groups[(a.work, a.main_character, a.role)].append(a)
    out = []
    for (work, main, role), members in groups.items():
        table = RoleTransfer(work=work, main_character=main, role=role, affection=members[0].affection, kind=kind)
        for label, ref in _rows(kind):
            with_ref = [a for a in members if _ref(a, kind) == ref]
            n = len(with_ref)
            table.counts[label] = n
            table.ratios[label] = {c: (sum(1 for a in with_ref if a.stance == c) / n if n else None) for c in COLUMNS}
        out.append(table)
    return out


def tables_by_language(answers: Sequence[JudgedAnswer]) -> dict[str, list[TransferTable]]:
    """Table 5 pooled over all ``answers``, one entry per claim language (in first-seen order)."""
    by_lang: dict[str, list[JudgedAnswer]] = defaultdict(list)
    for a in answers:
        by_lang[a.lang].append(a)
    result: dict[str, list[TransferTable]] = {}
    for lang, group in by_lang.items():
        result[lang] = [t for t in (transfer_table(group, "claim"), transfer_table(group, "backbone")) if t is not None]
    return result


class Table6(BaseModel):
    """Backbone vs aligned model, factual mode, with aligned - backbone differences."""

    backbone: dict[str, float | None]
    aligned: dict[str, float | None]
    delta: dict[str, float | None]
    claims: int
    """Distinct claims the backbone answered."""


def table6(backbone: BackboneMetrics | None, answers: Sequence[JudgedAnswer]) -> Table6 | None:
    """Table 6 for one report row (None without backbone stances)."""
    if backbone is None:
        return None
    aligned: Summary = summarize(per_role(answers, "factual"))
    b = {k: getattr(backbone, k) for k in TABLE6_RATES}
    a = {k: getattr(aligned, k) for k in TABLE6_RATES}
    delta = {k: (a[k] - b[k] if a[k] is not None and b[k] is not None else None) for k in TABLE6_RATES}
    return Table6(backbone=b, aligned=a, delta=delta, claims=backbone.claims)
