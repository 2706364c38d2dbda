"""What a simulation records: each session's memory updates and its question's outcome.

Outcome statuses: ``correct``, ``wrong``, ``ambiguous`` (several option markers; not correct),
``timeout`` (the question's utterance update, retrieval and answer together over the time limit;
a failure, as in the paper), ``unjudged`` (no verdict from the judge) and ``error`` (the agent,
its model or the judge raised).

Accuracy follows the reference: correct answers over *every* question asked, so a timeout, an
error or an unjudged answer is not correct (the authors' simulator counts a model error as a wrong
answer). Errors and unjudged answers are still counted and shown apart, never hidden among the
wrong answers, and a resumed run simulates a repetition with an error again.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, Field

from incanon.models.types import Usage
Status = Literal["correct", "wrong", "ambiguous", "timeout", "unjudged", "error"]
JUDGED: frozenset[str] = frozenset({"correct", "wrong", "ambiguous", "timeout"})
"""Statuses that are a verdict on the agent (the others are failures of the machinery)."""


class QuestionOutcome(BaseModel):
    """One question asked in a simulation and what became of it."""

    session: str
    date: str
    index: int
    """Asked after this utterance (0-based)."""
    asker: str
    question_id: str
    source: str
    type: str
    category: str
    answerable: bool
    format: str
    question: str
    """What the agent was asked (styled, renamed, with its options)."""
    options: list[str]
    gold: str
    gold_marker: str
    evidence: list[str] = Field(default_factory=list)
    answer: str | None = None
    status: Status
    stage: Literal["memory", "retrieval", "answer", "judge"] | None = None
    """Where a timeout or error happened."""
    calibrated: str | None = None
    """The reference's calibrated verdict (multiple choice; see ``calibrate``), else the status."""
    score_method: str | None = None
    score_detail: str = ""
    update_s: float | None = None
    """Memory update of the utterance the question follows."""
    retrieve_s: float | None = None
    """Retrieval from memory for the question."""
    answer_s: float | None = None
    """The model's answer (without retrieval)."""
    limit_s: float | None = None
    """What the question had left for retrieval and answer: the limit minus ``update_s``."""
    error: str | None = None
    retrieved: list[str] = Field(default_factory=list)
    styled: bool = False
    style_note: str = ""
    plan_note: str = ""


def latency_stats(values: list[float]) -> dict[str, float]:
    """count, mean, p50, p95, max (seconds)."""
    if not values:
        return {"count": 0}
    arr = np.asarray(values, dtype=float)
    return {"count": int(arr.size), "mean": float(arr.mean()), "p50": float(np.percentile(arr, 50)),
            "p95": float(np.percentile(arr, 95)), "max": float(arr.max())}


class SessionRecord(BaseModel):
    """One replayed session."""

    session: str
    date: str
    lines: int
    update: dict[str, float] = Field(default_factory=dict)
    """Latency statistics of this session's memory updates (seconds)."""
    memory_timeouts: int = 0
    """Memory updates over the time limit: each was dropped (not used by later questions)."""
    memory_errors: list[str] = Field(default_factory=list)
    question: QuestionOutcome | None = None
    skipped: str | None = None
    """Why no question was asked here."""
    dropped: dict[str, int] = Field(default_factory=dict)
    """Drawn questions the paper protocol passed over here, by reason (as the reference does)."""
    usage: Usage = Field(default_factory=Usage)
    """Model usage of the session (agent, summaries, style transfer, judge)."""

    def sample_status(self) -> Literal["ok", "error"]:
        return "error" if self.question is not None and self.question.status == "error" else "ok"

    def scores(self) -> dict[str, float | None]:
        q = self.question
        if q is None:
            return {}
        return {
            "correct": 1.0 if q.status == "correct" else 0.0,
            "calibrated": 1.0 if (q.calibrated or q.status) == "correct" else 0.0,
            "timeout": 1.0 if q.status == "timeout" else 0.0,
            "ambiguous": 1.0 if q.status == "ambiguous" else 0.0,
            "answer_s": q.answer_s,
        }


class SimulationResult(BaseModel):
    """One whole simulation."""

    seed: int
    main: str
    sessions: list[SessionRecord] = Field(default_factory=list)
    names: dict[str, str] = Field(default_factory=dict)
    """The adversarial renaming used (empty: original names)."""

    @property
    def outcomes(self) -> list[QuestionOutcome]:
        return [s.question for s in self.sessions if s.question is not None]

    def accuracy(self) -> float | None:
        """Correct over every question asked (the reference's score); None when none was asked."""
        asked = self.outcomes
        return sum(o.status == "correct" for o in asked) / len(asked) if asked else None

    def calibrated_accuracy(self) -> float | None:
        """The reference's calibrated score."""
        asked = self.outcomes
        return sum((o.calibrated or o.status) == "correct" for o in asked) / len(asked) if asked else None

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for o in self.outcomes:
            out[o.status] = out.get(o.status, 0) + 1
        return out

    def summary(self) -> dict[str, Any]:
        updates = [s.update.get("mean", 0.0) for s in self.sessions if s.update.get("count")]
        return {"seed": self.seed, "accuracy": self.accuracy(), "calibrated_accuracy": self.calibrated_accuracy(),
                "questions": len(self.outcomes),
                "statuses": self.counts(), "memory_timeouts": sum(s.memory_timeouts for s in self.sessions),
                "memory_errors": sum(len(s.memory_errors) for s in self.sessions),
                "mean_update_s": float(np.mean(updates)) if updates else None}
