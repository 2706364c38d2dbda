"""RoleRAG's three judges; in each the judge model plays the character itself.

* Knowledge Exposure (KE): 1-10, higher is better;
* Knowledge Hallucination (KH): 1-10, lower is better;
* Unknown Question Rejection (UQJ): 0/1, 1 when the answer keeps to the character's knowledge
  (answers what they know, declines what they cannot).

Each asks for an analysis, then ``Rating: N`` (parsed from the end, with one schema-constrained
repair turn when no rating can be read). Temperature 0.2, as in the paper (after Ditto).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from incanon.judges.base import Judgement, LLMJudge
from incanon.models.types import ChatModel, GenerationParams
from incanon.templates import PromptLibrary

KE_RANGE = (1, 10)
KH_RANGE = (1, 10)
UQJ_VALUES = (0, 1)
JUDGE_PARAMS = GenerationParams(temperature=0.2, max_tokens=384)


@dataclass
class RoleRAGJudges:
    """KE, KH and UQJ on one judge model."""

    ke: LLMJudge
    kh: LLMJudge
    uqj: LLMJudge

    @classmethod
    def on(cls, model: ChatModel, prompts: PromptLibrary | None = None,
           params: GenerationParams | None = None) -> "RoleRAGJudges":
        p = params or JUDGE_PARAMS
        return cls(LLMJudge(model, "rolerag_judge_ke", KE_RANGE, prompts=prompts, params=p),
                   LLMJudge(model, "rolerag_judge_kh", KH_RANGE, prompts=prompts, params=p),
                   LLMJudge(model, "rolerag_judge_uqj", UQJ_VALUES, prompts=prompts, params=p))

    async def judge(self, *, character: str, description: str, question: str, response: str
                    ) -> dict[str, Judgement]:
        """All three verdicts on one answer."""
        fields = {"character": character, "description": description, "question": question, "response": response}
        ke, kh, uqj = await asyncio.gather(self.ke.judge(**fields), self.kh.judge(**fields), self.uqj.judge(**fields))
        return {"ke": ke, "kh": kh, "uqj": uqj}
