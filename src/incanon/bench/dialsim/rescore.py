"""Recompute DialSim scores from stored answers, as the reference computes them.

A log that records verdicts (``result_list``, in either released layout: see
:mod:`incanon.bench.dialsim.logs`) is scored from them: the score is the count of "Correct" over
all questions and the calibrated score the same over ``calibrated_result_list``, exactly the
reference's formulas, so a released log reproduces its recorded scores. Answers are judged again
only when asked (``rejudge=True``): multiple choice by the reference's marker rule (and its
calibration), other formats by the exact step then the judge model. A recorded timeout stays a
timeout (it is a verdict on time, not on the answer).

Rows without verdicts (JSON Lines of ``{answer, gold, type, format}``, an old full log) are
scored the same way; without a judge, an open answer that is not an exact match is *unjudged*
(counted apart, and not correct in the headline, as every failure is).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from incanon.bench.dialsim.calibrate import calibrate_mc
from incanon.bench.dialsim.logs import Log, Row
from incanon.bench.dialsim.outcomes import JUDGED
from incanon.bench.dialsim.questions import MARKERS, category_of
from incanon.bench.dialsim.report import Cell, tally
from incanon.bench.dialsim.scoring import AnswerJudge, Score, score_exact_only, score_mc
from incanon.errors import ConfigError, InputError

FAN_TYPES = frozenset({"ans_w_time", "ans_wo_time", "before_event_unans", "dont_know_unans", "dont_know_unans_time"})
_TKG_PARTS = {"past", "cur", "fu"}


class RescoreReport(BaseModel):
    source: str
    layout: str
    format: str
    verdicts: str
    """``recorded`` (the log's own), ``rejudged`` or ``scored`` (rows without verdicts)."""
    rows: int
    accuracy: float | None
    """Correct over every question (the reference's score)."""
    calibrated_accuracy: float | None = None
    recorded_score: float | None = None
    recorded_calibrated_score: float | None = None
    statuses: dict[str, int] = Field(default_factory=dict)
    by_source: dict[str, Cell] = Field(default_factory=dict)
    by_category: dict[str, Cell] = Field(default_factory=dict)
    by_type: dict[str, Cell] = Field(default_factory=dict)
    times: dict[str, float] = Field(default_factory=dict)
    """Mean seconds per step over the questions that recorded one (update, retrieve, answer, total)."""

    def matches_recorded(self) -> bool | None:
        """Whether the recomputed scores equal the recorded ones (None: nothing recorded)."""
        if self.recorded_score is None:
            return None
        same = self.accuracy == self.recorded_score
        if self.recorded_calibrated_score is not None:
            same = same and self.calibrated_accuracy == self.recorded_calibrated_score
        return same

    def markdown(self) -> str:
        def pct(value: float | None) -> str:
            return "-" if value is None else f"{value * 100:.2f}%"

        judged = sum(v for k, v in self.statuses.items() if k in JUDGED)
        lines = [f"# DialSim rescore of {self.source}", "",
                 f"{self.rows} questions ({self.layout} layout, format {self.format}, {self.verdicts} verdicts): "
                 f"score {pct(self.accuracy)}, calibrated {pct(self.calibrated_accuracy)}"]
        if self.recorded_score is not None:
            same = self.matches_recorded()
            lines.append(f"recorded in the log: score {pct(self.recorded_score)}, calibrated "
                         f"{pct(self.recorded_calibrated_score)} ({'reproduced exactly' if same else 'DIFFERENT'})")
        lines.append(f"judged {judged}, failed {self.statuses.get('error', 0)}, "
                     f"unjudged {self.statuses.get('unjudged', 0)}; statuses: "
                     + ", ".join(f"{k} {v}" for k, v in sorted(self.statuses.items())))
        if self.times:
            lines.append("mean time (ms): " + ", ".join(f"{k} {v * 1000:.1f}" for k, v in self.times.items()))
        groups = [("source ", self.by_source), ("", self.by_category), ("type ", self.by_type)]
        if any(cells for _, cells in groups):
            lines += ["", "| group | questions | correct | accuracy % |", "|---|---|---|---|"]
            for name, cells in groups:
                for key, cell in sorted(cells.items()):
                    acc = "-" if cell.accuracy is None else f"{cell.accuracy * 100:.1f}"
                    lines.append(f"| {name}{key} | {cell.n} | {cell.correct} | {acc} |")
        return "\n".join(lines) + "\n"


def _category(row: Row, fmt: str) -> str:
    parts = row.type.split("_")
    hops = 2 if len(parts) > 1 and set(parts) <= _TKG_PARTS else 1
    gold = row.gold or ""
    if fmt == "mc" and gold.strip() == "(E)":
        gold = "I don't know."
    return category_of(row.type, gold, fan=row.type in FAN_TYPES, hops=hops)


WORDED_CHOICES = ("or you don't know?", "or don't you know?")
"""How a question with its choices in words ends: the reference's ``a? or b? or c? or d? or you
don't know?`` (``simulator.py``), incanon's ``Is it a, b, c or d, or don't you know?``."""


def guess_format(rows: list[Row]) -> str:
    """``mc`` when every gold answer is an option marker; otherwise ``mc-nl`` when every question
    recorded ends with its choices in words (:data:`WORDED_CHOICES`), else ``open``; ``unknown``
    when the log records no gold answers (the summary layout)."""
    golds = [r.gold for r in rows if r.gold is not None]
    if not golds:
        return "unknown"
    if all(g.strip() in MARKERS for g in golds):
        return "mc"
    # A released mc-nl log records no format either; its questions say it.
    questions = [r.question.rstrip() for r in rows if r.question]
    worded = bool(questions) and all(q.endswith(WORDED_CHOICES) for q in questions)
    return "mc-nl" if worded else "open"


def options_of(question: str) -> list[str]:
    """The five choice texts of a question laid out as the reference lays them out (tab-separated)."""
    parts = question.split("\t")
    if len(parts) < 6:
        return []
    return [part.replace(marker, "", 1).strip() for marker, part in zip(MARKERS, parts[1:6])]


async def _judge_row(row: Row, index: int, fmt: str, judge: AnswerJudge | None, lenient: bool,
                     source: str) -> tuple[str, str]:
    answer, gold = row.answer or "", row.gold or ""
    if answer.startswith("<<<Timeout"):
        return "timeout", "timeout"
    if fmt == "mc":
        marker = gold.strip()
        if marker not in MARKERS:
            raise InputError(f"the gold answer {gold[:40]!r} is not an option marker, so this log is not "
                             "multiple choice (try --format open or mc-nl)", source=source, where=f"question {index}")
        score = score_mc(answer, marker, lenient=lenient)
        return score.verdict, calibrate_mc(score.verdict, answer, marker, options_of(row.question))
    result: Score = (await judge.score(row.question, gold, answer) if judge is not None
                     else score_exact_only(answer, gold, lenient=lenient))
    return result.verdict, result.verdict


async def rescore(log: Log, *, fmt: str | None = None, judge: AnswerJudge | None = None, rejudge: bool = False,
                  lenient: bool = False) -> RescoreReport:
    """Scores of ``log`` (see the module docstring)."""
    rows = log.rows
    if not rows:
        raise InputError("holds no questions", source=log.source)
    recorded = all(r.recorded is not None for r in rows)
    if rejudge and any(r.answer is None for r in rows):
        raise ConfigError(f"{log.source}: a {log.layout} log records no answers, so it cannot be judged again; "
                          "give the full log (entire_log-*.json)")
    fmt = fmt or next((r.format for r in rows if r.format), None) or guess_format(rows)
    if fmt == "mc":
        for i, row in enumerate(rows):
            if row.gold is not None and row.gold.strip() not in MARKERS:
                raise InputError(f"the gold answer {row.gold[:40]!r} is not an option marker, so this log is not "
                                 "multiple choice (try --format open or mc-nl)", source=log.source,
                                 where=f"gold_answer_list[{i}]")
    use_recorded = recorded and not rejudge
    scored: list[dict[str, Any]] = []
    for i, row in enumerate(rows):
        if use_recorded:
            status, calibrated = row.recorded or "", row.recorded_calibrated or row.recorded or ""
        elif row.recorded == "timeout":
            status = calibrated = "timeout"
        else:
            status, calibrated = await _judge_row(row, i, fmt, judge if (rejudge or not recorded) else None,
                                                  lenient, log.source)
        source = "" if not row.type else ("fan" if row.type in FAN_TYPES else "tkg")
        scored.append({"status": status, "calibrated": calibrated, "type": row.type or None,
                       "category": _category(row, fmt) if row.type or row.gold else None, "source": source or None})
    statuses: dict[str, int] = {}
    for r in scored:
        statuses[r["status"]] = statuses.get(r["status"], 0) + 1
    n = len(scored)
    times: dict[str, float] = {}
    for name in ("update_s", "retrieve_s", "answer_s", "total_s"):
        values = [r.times[name] for r in rows if name in r.times]
        if values:
            times[name] = sum(values) / len(values)
    return RescoreReport(
        source=log.source, layout=log.layout, format=fmt,
        verdicts="recorded" if use_recorded else ("rejudged" if recorded else "scored"), rows=n,
        accuracy=sum(r["status"] == "correct" for r in scored) / n,
        calibrated_accuracy=sum(r["calibrated"] == "correct" for r in scored) / n,
        recorded_score=log.recorded_score, recorded_calibrated_score=log.recorded_calibrated_score,
        statuses=statuses, by_source=_cells(scored, "source"), by_category=_cells(scored, "category"),
        by_type=_cells(scored, "type"), times=times)


def _cells(rows: list[dict[str, Any]], key: str) -> dict[str, Cell]:
    return tally([r for r in rows if r.get(key)], key)
