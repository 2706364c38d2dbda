"""Recompute accuracy from stored answers, without the simulator (and without a model where the
format needs none).

Two inputs: a JSON Lines file of ``{answer, gold, type, format}`` rows (``gold`` is the option
marker for ``mc``, the answer text otherwise; ``question`` is used by the judge when present),
or a published DialSim result log (a JSON object with ``answer_list``, ``gold_answer_list`` and
``target_level_list``). Multiple choice is scored by markers alone; open answers by exact match,
and by the judge only when a judge model is given (else they are *unjudged* and counted apart).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from incanon.bench.dialsim.outcomes import SCORED
from incanon.bench.dialsim.questions import MARKERS, category_of
from incanon.bench.dialsim.report import Cell, tally
from incanon.bench.dialsim.scoring import AnswerJudge, Score, score_exact_only, score_mc
from incanon.errors import InputError

FAN_TYPES = frozenset({"ans_w_time", "ans_wo_time", "before_event_unans", "dont_know_unans", "dont_know_unans_time"})
_TKG_PARTS = {"past", "cur", "fu"}


class RescoreReport(BaseModel):
    source: str
    format: str
    rows: int
    accuracy: float | None
    statuses: dict[str, int] = Field(default_factory=dict)
    by_category: dict[str, Cell] = Field(default_factory=dict)
    by_type: dict[str, Cell] = Field(default_factory=dict)

    def markdown(self) -> str:
        acc = "-" if self.accuracy is None else f"{self.accuracy * 100:.2f}%"
        lines = [f"# DialSim rescore of {self.source}", "", f"{self.rows} answers, format {self.format}: accuracy {acc}",
                 "", "| group | scored answers | accuracy % |", "|---|---|---|"]
        for name, cells in (("", self.by_category), ("type ", self.by_type)):
            for key, cell in sorted(cells.items()):
                lines.append(f"| {name}{key} | {cell.n} | {cell.accuracy * 100:.1f} |" if cell.accuracy is not None
                             else f"| {name}{key} | {cell.n} | - |")
        lines += ["", "statuses: " + ", ".join(f"{k} {v}" for k, v in sorted(self.statuses.items()))]
        return "\n".join(lines) + "\n"


def read_rows(path: str | Path) -> list[dict[str, Any]]:
    """Rows from a JSONL file or a published result log (normalized to answer/gold/type)."""
    p = Path(path).expanduser()
    if not p.is_file():
        raise InputError(f"file {p} does not exist")
    text = p.read_text(encoding="utf-8")
    try:
        whole = json.loads(text)
    except ValueError:
        whole = None
    if isinstance(whole, dict) and "answer_list" in whole:
        answers, golds = whole["answer_list"], whole.get("gold_answer_list", [])
        levels = whole.get("target_level_list") or [{} for _ in answers]
        if not (len(answers) == len(golds) == len(levels)):
            raise InputError(f"{p}: answer_list, gold_answer_list and target_level_list differ in length")
        return [{"answer": str(a), "gold": str(g), "type": (lv or {}).get("current_type", "")}
                for a, g, lv in zip(answers, golds, levels)]
    rows = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as exc:
            raise InputError(f"not JSON: {exc}", source=str(p), where=f"line {lineno}") from None
        if not isinstance(row, dict) or "answer" not in row or "gold" not in row:
            raise InputError("expected an object with answer and gold", source=str(p), where=f"line {lineno}")
        rows.append(row)
    return rows


def _category(row: dict[str, Any], fmt: str) -> str:
    if row.get("category"):
        return str(row["category"])
    type_ = str(row.get("type", ""))
    parts = type_.split("_")
    hops = 2 if len(parts) > 1 and set(parts) <= _TKG_PARTS else 1
    gold = str(row["gold"])
    if fmt == "mc" and gold.upper() == "(E)" and type_ == "":
        gold = "I don't know."
    return category_of(type_, gold, fan=type_ in FAN_TYPES, hops=hops)


def guess_format(rows: list[dict[str, Any]]) -> str:
    """``mc`` when every gold answer is an option marker, else ``open``."""
    return "mc" if rows and all(str(r["gold"]).strip().upper() in MARKERS for r in rows) else "open"


async def rescore(rows: list[dict[str, Any]], *, source: str, fmt: str | None = None,
                  judge: AnswerJudge | None = None) -> RescoreReport:
    fmt = fmt or (rows[0].get("format") if rows and rows[0].get("format") else guess_format(rows))
    scored: list[dict[str, Any]] = []
    for row in rows:
        answer, gold = str(row["answer"]), str(row["gold"])
        if answer.startswith("<<<Timeout"):
            status = "timeout"
        else:
            score: Score
            if fmt == "mc":
                score = score_mc(answer, gold.strip().upper())
            elif judge is not None:
                score = await judge.score(str(row.get("question", "")), gold, answer)
            else:
                score = score_exact_only(answer, gold)
            status = score.verdict
        scored.append({"status": status, "type": row.get("type", ""), "category": _category(row, fmt)})
    statuses: dict[str, int] = {}
    for r in scored:
        statuses[r["status"]] = statuses.get(r["status"], 0) + 1
    counted = [r for r in scored if r["status"] in SCORED]
    accuracy = sum(r["status"] == "correct" for r in counted) / len(counted) if counted else None
    return RescoreReport(source=source, format=fmt, rows=len(rows), accuracy=accuracy, statuses=statuses,
                         by_category=tally(scored, "category"), by_type=tally(scored, "type"))
