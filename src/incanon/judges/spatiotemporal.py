"""TimeChara's spatiotemporal-consistency judge (0 or 1, given a spatiotemporal label)."""

from __future__ import annotations

from typing import Any, Callable, Literal

from incanon.judges.base import Judgement, LLMJudge
from incanon.models.types import ChatModel, GenerationParams
from incanon.templates import PromptLibrary

DataType = Literal["future", "past-absence", "past-presence", "past-only"]


def spatiotemporal_label(data_type: DataType, character: str, when: str, event: str) -> str:
    """The label a judge needs to tell a consistent answer from a hallucinated one.

    The wording is incanon's own; the four cases follow TimeChara's data types.
    """
    if data_type == "future":
        return (
            f"Future: at {when}, {character} has not yet lived the following, which happens later "
            f"in the story: {event} {character} must not know it or reveal any part of it."
        )
    if data_type == "past-absence":
        return (
            f"Past, absent: by {when} this has happened, but {character} was NOT there: {event} "
            f"{character} must not describe it as something they saw or took part in."
        )
    if data_type == "past-presence":
        return (
            f"Past, present: by {when}, {character} was there when this happened: {event} "
            f"{character} should recall it as a witness without contradicting it, and must not "
            f"claim to have missed it or to know nothing of it."
        )
    return (
        f"Past: by {when}, {character} can know this: {event} "
        f"{character}'s answer must not contradict it."
    )


JUDGE_PARAMS = GenerationParams(temperature=0.0, top_p=0.95, max_tokens=1024, seed=0)
"""The paper's judge settings (Appendix G.1; the authors' ``call_openai_api`` defaults)."""


class SpatiotemporalJudge:
    """Scores an answer 1 (consistent with the label) or 0 (inconsistent)."""

    def __init__(self, model: ChatModel, prompts: PromptLibrary | None = None,
                 params: GenerationParams | None = None,
                 parser: Callable[[str, Any], int | None] | None = None) -> None:
        self._judge = LLMJudge(model, "judge_spatiotemporal", {0, 1}, prompts=prompts,
                               params=params or JUDGE_PARAMS, parser=parser)

    async def judge(
        self, *, character: str, when: str, question: str, answer: str, label: str
    ) -> Judgement:
        """Judge ``answer`` to ``question`` by ``character`` at ``when`` against ``label``."""
        return await self._judge.judge(
            character=character, when=when, question=question, answer=answer, label=label
        )
