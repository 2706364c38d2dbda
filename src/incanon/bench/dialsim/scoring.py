"""Scoring one answer: option markers for multiple choice, exact match then a judge otherwise.

Multiple choice, the reference rule (``judge_eq`` of the authors' ``process_answer.py``): an
answer is correct when the gold marker appears exactly as written (``(B)``: upper case, no
spaces) and no other option's marker does, in upper or lower case; a second marker makes it
*ambiguous* (not correct, reported apart, and then resolved by :mod:`calibrate` for the
calibrated score). A lower-case ``(b)`` alone is not the gold marker, so it is wrong. The
*lenient* variant (``lenient=True``) accepts any case and inner spaces (``( b )``).

Open answers (and choices said in words): correct when the answer equals the gold answer, or
the gold answer with a full stop (the reference's exact step; the lenient variant compares
after normalizing case, punctuation, articles and "do not"/"don't"); otherwise an LLM judge
decides. A judge that gives no verdict leaves the answer *unjudged*: never a silent wrong answer.
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
_ALL_MARKERS = ("(A)", "(B)", "(C)", "(D)", "(E)", "(a)", "(b)", "(c)", "(d)", "(e)")
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


def score_mc(answer: str, gold_marker: str, *, lenient: bool = False) -> Score:
    """The reference's marker rule, or its lenient variant (see the module docstring)."""
    if gold_marker not in MARKERS:
        raise ValueError(f"gold marker must be one of {MARKERS}, got {gold_marker!r}")
    if lenient:
        found = markers_in(answer)
        if not found:
            return Score("wrong", "marker", "no option marker")
        if len(found) > 1:
            return Score("ambiguous", "marker", "several markers: " + " ".join(found))
        return Score("correct" if found[0] == gold_marker else "wrong", "marker", found[0])
    if gold_marker not in answer:
        return Score("wrong", "marker", f"no {gold_marker}")
    others = [m for m in _ALL_MARKERS if m not in (gold_marker, gold_marker.lower()) and m in answer]
    if others:
        return Score("ambiguous", "marker", "several markers: " + " ".join([gold_marker, *others]))
    return Score("correct", "marker", gold_marker)


def normalize(text: str) -> str:
    """Lower case, ``do not`` → ``dont``, no punctuation or articles, single spaces."""
    text = text.casefold().replace("’", "'").replace("do not", "don't")
    text = re.sub(r"[^\w\s]", "", text)
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def exact_match(answer: str, gold: str, *, lenient: bool = True) -> bool:
    """``lenient``: equal after ``normalize`` (so "I do not know" matches "I don't know.");
    strict (the reference): the gold answer itself, or followed by a full stop."""
    if not lenient:
        return bool(gold) and answer in (gold, f"{gold}.")
    return bool(normalize(answer)) and normalize(answer) == normalize(gold)


class AnswerJudge:
    """The LLM judge for open answers: 1 when the answer means the gold answer, else 0."""

    def __init__(self, model: ChatModel, *, prompts: PromptLibrary | None = None, lenient: bool = False,
                 template: str = "dialsim_judge") -> None:
        self.lenient = lenient
        """Lenient exact step (normalized text) instead of the reference's literal one."""
        self.judge = LLMJudge(model, template, {0, 1}, prompts=prompts, params=GenerationParams(max_tokens=256))

    async def score(self, question: str, gold: str, answer: str) -> Score:
        if exact_match(answer, gold, lenient=self.lenient):
            return Score("correct", "exact")
        verdict = await self.judge.judge(question=question, gold=gold, answer=answer,
                                         unanswerable=normalize(gold) == normalize(IDK))
        if verdict.score is None:
            return Score("unjudged", "judge", verdict.rationale[:500])
        return Score("correct" if verdict.score == 1 else "wrong", "judge", verdict.rationale[:500])


def score_exact_only(answer: str, gold: str, *, lenient: bool = False) -> Score:
    """Open scoring without a judge: exact match, else unjudged (for rescoring offline)."""
    if exact_match(answer, gold, lenient=lenient):
        return Score("correct", "exact")
    return Score("unjudged", "exact", "needs a judge")
