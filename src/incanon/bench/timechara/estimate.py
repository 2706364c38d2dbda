"""The judge calls of a TimeChara evaluation, for ``incanon timechara eval --dry-run``.

Mirrors :func:`incanon.bench.timechara.evaluate.judge_answer` call for call: per item the
spatiotemporal judge once against the temporal label and once more against the spatial label
when the item has one (past-presence / past-absence), the personality judge once, and the
hallucination classifier only when the answer is judged inconsistent. Each judge may make one
repair call when its verdict is unreadable (counted in the maximum only).
"""

from __future__ import annotations

from typing import Mapping

from incanon.bench.sizing import prompt_tokens, text_tokens
from incanon.bench.timechara.items import TimeCharaItem
from incanon.runs.estimate import CallPattern, EstimateLine
from incanon.runs.records import RunItem
from incanon.templates import PromptLibrary

ANSWER_TOKENS = 120
"""Length of the answer the judges read: the completion size of the built-in one-call methods."""
VERDICT_TOKENS = 80
"""A verdict: "two or three sentences", then ``Score: N`` / ``Type: ...``."""
INCONSISTENT_SHARE = 0.5
"""Assumed share of answers judged inconsistent (hence classified). The paper's methods score
roughly 50-80% consistent, so this leans high on purpose: a budget should not be short."""


def _item(run_item: RunItem) -> TimeCharaItem:
    return TimeCharaItem.model_validate(run_item.input)


def judge_lines(judge: str, *, prompts: PromptLibrary | None = None, hallucination_types: bool = True,
                personalities: Mapping[str, str] | None = None) -> list[EstimateLine]:
    """One estimate line per judge the evaluation runs on ``judge`` (a model spec)."""
    known = {k.lower(): v for k, v in (personalities or {}).items()}

    def spatiotemporal(run_item: RunItem) -> CallPattern:
        item = _item(run_item)
        labels = [item.temporal_label] + ([item.spatial_label] if item.has_spatial else [])
        size = sum(prompt_tokens("judge_spatiotemporal", [item.character, item.question, label], prompts,
                                 extra=ANSWER_TOKENS + 8) for label in labels) // len(labels)
        calls = len(labels)
        return CallPattern(calls=calls, min_calls=calls, max_calls=2 * calls, prompt_tokens=size,
                           completion_tokens=VERDICT_TOKENS)

    def personality(run_item: RunItem) -> CallPattern:
        item = _item(run_item)
        text = item.personality_label or known.get(item.character.lower(), "")
        size = prompt_tokens("judge_personality", [item.character, item.question, text], prompts,
                             extra=ANSWER_TOKENS + 8)
        return CallPattern(calls=1, min_calls=1, max_calls=2, prompt_tokens=size, completion_tokens=VERDICT_TOKENS)

    def hallucination(run_item: RunItem) -> CallPattern:
        item = _item(run_item)
        size = prompt_tokens("judge_hallucination", [item.character, item.question, item.temporal_label,
                                                     item.spatial_label if item.has_spatial else ""],
                             prompts, extra=ANSWER_TOKENS + text_tokens(item.data_type) + 8)
        return CallPattern(calls=INCONSISTENT_SHARE, min_calls=0, max_calls=2, prompt_tokens=size,
                           completion_tokens=VERDICT_TOKENS)

    lines = [
        EstimateLine("judge: spatiotemporal", judge, spatiotemporal,
                     note="1 call, 2 for past-presence/absence items (spatial label too)"),
        EstimateLine("judge: personality", judge, personality, note="1 call per item"),
    ]
    if hallucination_types:
        lines.append(EstimateLine(
            "judge: hallucination type", judge, hallucination,
            note=f"only for inconsistent answers: assumed {INCONSISTENT_SHARE:.0%} of items"))
    return lines
