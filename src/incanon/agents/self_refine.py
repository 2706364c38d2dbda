"""Self-refine: answer, score yourself, revise; stop when the answer is good enough.

TimeChara's variant of self-refine: the model rates its own answer on spatiotemporal
consistency (0 or 3) and personality (1 to 3) with a reason each; at a combined score of 5 or
more the answer stands, otherwise it is revised with the feedback, for at most three rounds.
A feedback whose scores cannot be read counts as "not good enough" (the answer is revised),
and every round's scores are kept in ``Reply.details["rounds"]``.
"""

from __future__ import annotations

import re
from typing import Any, Sequence

from incanon.agents.base import Agent, CallRecord, CharacterAt, Reply, Turn
from incanon.agents.registry import register_agent
from incanon.agents.support import final_messages, question_of, strip_label
from incanon.llmout import parse_score
from incanon.models.types import Message

GOOD_ENOUGH = 5
MAX_ROUNDS = 3

_PERSONALITY = re.compile(r"(?i)personality")
_TOTAL = re.compile(r"(?im)^\W*total\b.*$")


def parse_feedback(text: str) -> dict[str, int | None]:
    """Read ``spatiotemporal`` (0/3), ``personality`` (1-3) and ``total`` from feedback.

    The text before the first mention of personality is the spatiotemporal part; the text
    from there to the total line is the personality part. The total is the sum of the two
    when both are read, else a stated total (0-6), else None.
    """
    split = _PERSONALITY.search(text)
    head, tail = (text[:split.start()], text[split.start():]) if split else (text, "")
    total_line = _TOTAL.search(tail)
    personality_part = tail[:total_line.start()] if total_line else tail
    spatiotemporal = parse_score(head, {0, 3})
    personality = parse_score(personality_part, (1, 3)) if personality_part else None
    if spatiotemporal is not None and personality is not None:
        total: int | None = spatiotemporal + personality
    else:
        stated = _TOTAL.findall(text)
        total = _stated_total(stated[-1]) if stated else None
    return {"spatiotemporal": spatiotemporal, "personality": personality, "total": total}


def _stated_total(line: str) -> int | None:
    numbers = [int(n) for n in re.findall(r"\d+", line)]
    numbers = [n for n in numbers if 0 <= n <= 6]
    return numbers[0] if numbers else None


@register_agent("self-refine")
class SelfRefineAgent(Agent):
    """Answer, then up to ``max_rounds`` (3) rounds of self-feedback and revision.

    Calls per turn: 2 (answer, feedback good enough) up to 1 + 2 × 3 = 7.
    Options: ``max_rounds=``, ``threshold=`` (5).
    """

    async def respond(self, who: CharacterAt, dialogue: Sequence[Turn]) -> Reply:
        calls: list[CallRecord] = []
        max_rounds = int(self.options.get("max_rounds", MAX_ROUNDS))
        threshold = int(self.options.get("threshold", GOOD_ENOUGH))
        question = question_of(dialogue)
        answer = await self._call("answer", final_messages(self, who, dialogue), calls)
        rounds: list[dict[str, Any]] = []
        accepted = False
        for n in range(1, max_rounds + 1):
            prompt = self.prompts.render(
                "self_refine_feedback", character=who.character, work_title=who.work_title,
                when=who.when, situation=who.time_description, personality=who.personality,
                question=question, answer=answer,
            )
            feedback = await self._call(f"feedback-{n}", [Message(role="user", content=prompt)], calls)
            scores = parse_feedback(feedback)
            rounds.append({"round": n, **scores})
            if scores["total"] is not None and scores["total"] >= threshold:
                accepted = True
                break
            messages = final_messages(self, who, dialogue, template="self_refine_revise",
                                      answer=answer, feedback=feedback)
            revised = strip_label(await self._call(f"refine-{n}", messages, calls))
            answer = revised or answer
            rounds[-1]["revised"] = True
        return Reply(text=answer, method=self.name, calls=calls,
                     details={"rounds": rounds, "accepted": accepted})
