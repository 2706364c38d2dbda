"""The judges' and self-refine's calls of a TimeChara evaluation, under either protocol.

Both protocols fill ``{agent_name}`` of a ``--prompts-from`` prompt as the authors' code does
(the character with its time point, ``published.authors_names``). The paper protocol also calls
as the authors' code calls (``evaluate.py``, ``methods/self_refine/self_refine.py``):

* **judges**: a system message before the prompt (``timechara_judge_system``: the clone's own
  when ``--prompts-from`` gives it, else incanon's wording), and no repair call when the score
  cannot be read: the sample is left unjudged, where incanon's protocol asks once more;
* **self-refine's feedback**: the same system message kind (``self_refine_system``), the
  authors' settings for it (temperature 0.0, top_p 0.95, 1,024 tokens: their
  ``call_openai_api`` defaults), and their stop rule: the answer stands when the feedback's
  last line ends with a digit 0-7 of 5 or more (``scoring.authors_extract``), else it is
  revised; at most three rounds. incanon's protocol reads both scores of the feedback and adds
  them (``incanon.agents.self_refine.parse_feedback``).
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from incanon.agents.base import CallRecord, CharacterAt, Reply, Turn
from incanon.agents.self_refine import GOOD_ENOUGH, MAX_ROUNDS, SelfRefineAgent, parse_feedback
from incanon.agents.support import final_messages, question_of, strip_label
from incanon.bench.timechara.published import authors_names
from incanon.bench.timechara.scoring import authors_extract
from incanon.judges.base import Judgement, LLMJudge
from incanon.models.types import GenerationParams, Message

FEEDBACK_PARAMS = GenerationParams(temperature=0.0, top_p=0.95, max_tokens=1024, seed=0)
"""The authors' settings of the feedback call (their ``call_openai_api`` defaults)."""


def names_of(who: CharacterAt) -> tuple[str, str]:
    """(judges' ``agent_name``, feedback's ``agent_name``) of ``who``: the authors' names of a
    published row's character, else the bare name for both."""
    found = authors_names(who.series, who.character, who.period) if who.series and who.period else None
    return found or (who.character, who.character)


def feedback_sufficient(feedback: str, threshold: int = GOOD_ENOUGH) -> bool:
    """The authors' stop rule: the feedback's score, read as their ``extract_score`` reads it, is
    a number of at least ``threshold``."""
    score = authors_extract(feedback)
    return isinstance(score, int) and score >= threshold


class AuthorsJudge(LLMJudge):
    """An ``LLMJudge`` that calls as the authors' ``evaluate.py``: a system message, one call."""

    async def judge(self, **fields: Any) -> Judgement:
        messages = [Message(role="system", content=self.prompts.render("timechara_judge_system", **fields)),
                    Message(role="user", content=self.prompts.render(self.template, **fields))]
        first = await self.model.generate(messages, self.params)
        call = {"step": "judge", "messages": [{"role": m.role, "content": m.content} for m in messages],
                "output": first.text}
        return Judgement(score=self.parser(first.text, self.allowed), rationale=first.text.strip(), calls=[call])


class ItemJudge:
    """One TimeChara judge of an evaluation (template, score range), calling the authors' way
    when ``authors``."""

    def __init__(self, model: Any, template: str, allowed: Iterable[int] | tuple[float, float], *,
                 prompts: Any, params: GenerationParams, parser: Any, authors: bool = False) -> None:
        kind = AuthorsJudge if authors else LLMJudge
        self._judge = kind(model, template, allowed, prompts=prompts, params=params, parser=parser)

    async def judge(self, **fields: Any) -> Judgement:
        """Judge one answer; ``fields`` fill the template (``agent_name`` among them)."""
        return await self._judge.judge(**fields)


class TimeCharaSelfRefine(SelfRefineAgent):
    """Self-refine with ``{agent_name}`` filled the authors' way, and (option ``authors=True``, the
    paper protocol) their feedback call and stop rule."""

    async def respond(self, who: CharacterAt, dialogue: Sequence[Turn]) -> Reply:
        authors = bool(self.options.get("authors"))
        calls: list[CallRecord] = []
        max_rounds = int(self.options.get("max_rounds", MAX_ROUNDS))
        threshold = int(self.options.get("threshold", GOOD_ENOUGH))
        question = question_of(dialogue)
        agent_name = names_of(who)[1]
        answer = await self._call("answer", final_messages(self, who, dialogue), calls)
        rounds: list[dict[str, Any]] = []
        accepted = False
        for n in range(1, max_rounds + 1):
            variables = dict(character=who.character, agent_name=agent_name, work_title=who.work_title,
                             when=who.when, situation=who.time_description, personality=who.personality,
                             question=question, answer=answer)
            messages = [Message(role="user", content=self.prompts.render("self_refine_feedback", **variables))]
            if authors:
                messages.insert(0, Message(role="system", content=self.prompts.render("self_refine_system",
                                                                                       **variables)))
            feedback = await self._call(f"feedback-{n}", messages, calls, FEEDBACK_PARAMS if authors else None)
            if authors:
                score = authors_extract(feedback)
                rounds.append({"round": n, "score": score if isinstance(score, int) else None})
                good = feedback_sufficient(feedback, threshold)
            else:
                scores = parse_feedback(feedback)
                rounds.append({"round": n, **scores})
                good = scores["total"] is not None and scores["total"] >= threshold
            if good:
                accepted = True
                break
            messages = final_messages(self, who, dialogue, template="self_refine_revise",
                                      answer=answer, feedback=feedback)
            text = await self._call(f"refine-{n}", messages, calls)
            revised = text if authors and text.strip() else strip_label(text)  # the authors' as it came
            answer = revised or answer
            rounds[-1]["revised"] = True
        return Reply(text=answer, method=self.name, calls=calls,
                     details={"rounds": rounds, "accepted": accepted, **({"stop_rule": "authors"} if authors else {})})
