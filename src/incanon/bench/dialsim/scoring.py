"""Scoring one answer: option markers for multiple choice, exact match then a judge otherwise.

Multiple choice: an answer is correct when the gold marker (``(B)``, any case) appears and no
other option's marker does. Several markers make it *ambiguous*, which counts as wrong but is
reported apart (as the paper does). No marker at all is wrong.

Open answers (and choices said in words): correct on an exact match with the gold answer after
normalization (case, punctuation, articles, "do not"/"don't"); otherwise an LLM judge decides.
A judge that gives no verdict leaves the answer *unjudged*: never a silent wrong answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from incanon.bench.dialsim.questions import IDK, MARKERS
from incanon.judges.base import LLMJudge
from incanon.models.types import ChatModel, GenerationParams
from incanon.templates import PromptLibrary

Verdict = Literal["correct", "wrong", "ambiguous", "unjudged"]
_MARKER = re.compile(r"\(\s*([A-Ea-e])\s*\)")
_ARTICLES = re.compile(r"\b(a|an|the)\b")


@dataclass(frozen=True)
class Score:
    """How one answer was scored."""

    verdict: Verdict
    method: Literal["marker", "exact", "judge"]
    detail: str = ""

    @property
    def correct(self) -> bool | None:
        """True/False, or None when unjudged."""
        return None if self.verdict == "unjudged" else self.verdict == "correct"


def markers_in(answer: str) -> list[str]:
    """Distinct option markers in ``answer``, in order of first appearance (``(A)`` form)."""
    found = dict.fromkeys(f"({m.upper()})" for m in _MARKER.findall(answer))
    return list(found)


def score_mc(answer: str, gold_marker: str) -> Score:
    """The paper's marker rule (see the module docstring)."""
    if gold_marker not in MARKERS:
        raise ValueError(f"gold marker must be one of {MARKERS}, got {gold_marker!r}")
    found = markers_in(answer)
    if not found:
        return Score("wrong", "marker", "no option marker")
    if len(found) > 1:
        return Score("ambiguous", "marker", "several markers: " + " ".join(found))
    return Score("correct" if found[0] == gold_marker else "wrong", "marker", found[0])


def normalize(text: str) -> str:
    """Lower case, ``do not`` → ``dont``, no punctuation or articles, single spaces."""
    text = text.casefold().replace("’", "'").replace("do not", "don't")
    text = re.sub(r"[^\w\s]", "", text)
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def exact_match(answer: str, gold: str) -> bool:
    """Equal after ``normalize`` (so "I do not know" matches "I don't know.")."""
    return bool(normalize(answer)) and normalize(answer) == normalize(gold)


class AnswerJudge:
    """The LLM judge for open answers: 1 when the answer means the gold answer, else 0."""

    def __init__(self, model: ChatModel, *, prompts: PromptLibrary | None = None) -> None:
        self.judge = LLMJudge(model, "dialsim_judge", {0, 1}, prompts=prompts,
                              params=GenerationParams(max_tokens=256))

    async def score(self, question: str, gold: str, answer: str) -> Score:
        if exact_match(answer, gold):
            return Score("correct", "exact")
        verdict = await self.judge.judge(question=question, gold=gold, answer=answer,
                                         unanswerable=normalize(gold) == normalize(IDK))
        if verdict.score is None:
            return Score("unjudged", "judge", verdict.rationale[:500])
        return Score("correct" if verdict.score == 1 else "wrong", "judge", verdict.rationale[:500])


def score_exact_only(answer: str, gold: str) -> Score:
    """Open scoring without a judge: exact match, else unjudged (for rescoring offline)."""
    return Score("correct", "exact") if exact_match(answer, gold) else Score("unjudged", "exact", "needs a judge")
