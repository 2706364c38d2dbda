"""TimeChara's personality-consistency judge: reasoning first, then a 1-7 score.

Personality is time-independent: the judge sees the character's personality text, the question
and the answer, but not what the character may know (that is the spatiotemporal judge's job).
"""

from __future__ import annotations

from typing import Any, Callable

from incanon.judges.base import Judgement, LLMJudge
from incanon.judges.spatiotemporal import JUDGE_PARAMS
from incanon.models.types import ChatModel, GenerationParams
from incanon.templates import PromptLibrary

PERSONALITY_RANGE = (1, 7)
"""Inclusive score range (a 7-point Likert scale)."""


class PersonalityJudge:
    """Scores how well an answer reflects the character's personality, 1 (not at all) to 7."""

    template = "judge_personality"

    def __init__(
        self,
        model: ChatModel,
        prompts: PromptLibrary | None = None,
        params: GenerationParams | None = None,
        parser: Callable[[str, Any], int | None] | None = None,
    ) -> None:
        self._judge = LLMJudge(model, self.template, PERSONALITY_RANGE, prompts=prompts,
                               params=params or JUDGE_PARAMS, parser=parser)

    async def judge(
        self, *, character: str, question: str, answer: str, personality: str, when: str = ""
    ) -> Judgement:
        """Judge ``answer`` to ``question`` against ``personality`` (the character's traits text;
        empty asks the judge to rely on the story's portrayal)."""
        return await self._judge.judge(
            character=character, when=when, question=question, answer=answer, personality=personality
        )
