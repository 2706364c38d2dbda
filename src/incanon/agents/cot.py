"""Chain-of-thought role-play: the paper's zero-shot-CoT baseline, and a guided variant.

``zero-shot-cot`` is TimeChara's baseline (Kojima et al., 2022): the zero-shot prompt with
"Let's think step by step." after the question (template ``roleplay_cot``); the whole output,
reasoning included, is the answer and is judged as it is, as in the authors' ``generate.py``.

``guided-cot`` is incanon's own method: the instruction names what to reason about (where the
character stands, past or future, present or not) and asks for the reply after an ``Answer:``
line. Only that reply is returned; the reasoning stays in the recorded call. When the model
gives no ``Answer:`` line, one more call turns its notes into a reply, so reasoning never reaches
the user as the answer.
"""

from __future__ import annotations

from typing import Sequence

from incanon.agents.base import Agent, CallRecord, CharacterAt, Reply, Turn
from incanon.agents.registry import register_agent
from incanon.agents.support import extract_answer, final_messages, strip_label


@register_agent("zero-shot-cot")
class ZeroShotCoTAgent(Agent):
    """The zero-shot prompt with "Let's think step by step." after the question; the full
    output is the answer (TimeChara's zero-shot-CoT baseline).

    Calls per turn: 1 (``answer``).
    """

    async def respond(self, who: CharacterAt, dialogue: Sequence[Turn]) -> Reply:
        calls: list[CallRecord] = []
        messages = final_messages(self, who, dialogue, template="roleplay_cot")
        text = await self._call("answer", messages, calls)
        return Reply(text=text, method=self.name, calls=calls)


@register_agent("guided-cot")
class GuidedCoTAgent(Agent):
    """Persona prompt plus step-by-step reasoning about the character's time point; only the
    reply after ``Answer:`` is returned (incanon's method, not one of the paper's).

    Calls per turn: 1 (``reasoning``), or 2 when the reply has to be extracted (``answer``).
    """

    async def respond(self, who: CharacterAt, dialogue: Sequence[Turn]) -> Reply:
        calls: list[CallRecord] = []
        messages = final_messages(self, who, dialogue, template="roleplay_guided_cot")
        reasoning = await self._call("reasoning", messages, calls)
        answer = extract_answer(reasoning)
        extracted = answer is not None
        if answer is None:
            notes = reasoning.strip() or "(none)"
            follow_up = final_messages(self, who, dialogue, template="roleplay_guided_cot_answer", reasoning=notes)
            answer = strip_label(await self._call("answer", follow_up, calls))
            # A model that still writes "Reasoning: ... Answer: ..." gets the same cut.
            answer = extract_answer(answer) or answer
        return Reply(
            text=answer, method=self.name, calls=calls,
            details={"answer_marked": extracted},
        )
