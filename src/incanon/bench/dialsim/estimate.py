"""The model calls of a DialSim setting, for ``incanon dialsim run --dry-run``.

The questions a simulation asks depend only on the seed, so the plan of every repetition is
computed here exactly as the simulator computes it (no model is needed): the count of answer
calls is exact. Per repetition and session (one stored sample):

- the agent answers the session's planned question: 1 call when the plan asks one there, with
  the remembered text (at most ``--context-tokens``) and the question in the prompt;
- summary memories summarize each session when it ends: 1 call per session;
- the agent's warm-up before the clock starts: 1 call of 1 token per repetition;
- mc-nl and open answers are judged unless they match the gold exactly: at most 1 call;
- ``--style-model`` restyles each asked question: at most 1 call (kept in a cache).
"""

from __future__ import annotations

from typing import Any

from incanon.bench.dialsim.agents.strategies import SUMMARY_WORDS
from incanon.bench.dialsim.plan import plan_simulation
from incanon.bench.dialsim.questions import Question
from incanon.bench.dialsim.script import DialScript
from incanon.bench.dialsim.simulator import SimConfig
from incanon.bench.sizing import prompt_tokens, text_tokens
from incanon.runs.estimate import CallPattern, EstimateLine
from incanon.runs.records import RunItem

ANSWER_TOKENS = {"mc": 8, "mc-nl": 40, "open": 40}
"""Typical answer lengths: an option marker, or a short phrase."""
OPTIONS_TOKENS = 60
"""The five options appended to a multiple-choice question."""


def estimate_items(script: DialScript, questions: list[Question], config: SimConfig, epochs: list[int],
                   context_tokens: int | None) -> list[RunItem]:
    """One item per (repetition, session) to simulate, with what the call patterns need: whether
    a question is asked there and how big the prompts are."""
    items: list[RunItem] = []
    sizes = [sum(text_tokens(line.render()) for line in s.lines) for s in script.dialogue]
    for epoch in epochs:
        plan = plan_simulation(script, questions, seed=config.seed + epoch, config=config)
        seen = 0
        for k, session in enumerate(script.dialogue):
            seen += sizes[k]
            planned = plan.asked.get(session.id)
            items.append(RunItem(id=f"{session.id}#{epoch}", input={
                "first": k == 0, "lines": len(session.lines), "session_tokens": sizes[k],
                "memory_tokens": min(context_tokens, seen) if context_tokens else seen,
                "question_tokens": text_tokens(planned.question.texts["default"]) if planned else None,
                "gold_tokens": text_tokens(planned.question.answer) if planned else 0,
            }))
    return items


def _asked(item: RunItem) -> bool:
    return item.input["question_tokens"] is not None


def setting_lines(memory: str, config: SimConfig, *, model: str, judge: str | None = None,
                  style: str | None = None) -> list[EstimateLine]:
    """The estimate lines of one setting (memory strategy × time limit)."""
    fmt = config.answer_format
    answer_out = ANSWER_TOKENS[fmt]

    def answer(item: RunItem) -> CallPattern:
        if not _asked(item):
            return CallPattern(calls=0, prompt_tokens=0, completion_tokens=0)
        x: dict[str, Any] = item.input
        size = prompt_tokens("dialsim_answer", extra=x["memory_tokens"] + x["question_tokens"] + OPTIONS_TOKENS)
        return CallPattern(calls=1, prompt_tokens=size, completion_tokens=answer_out)

    def warm_up(item: RunItem) -> CallPattern:
        return CallPattern(calls=1 if item.input["first"] and config.warms_model else 0, prompt_tokens=6,
                           completion_tokens=1)

    def summary(item: RunItem) -> CallPattern:
        calls = 1 if item.input["lines"] else 0
        return CallPattern(calls=calls, prompt_tokens=prompt_tokens("dialsim_summary", extra=item.input["session_tokens"]),
                           completion_tokens=int(SUMMARY_WORDS * 1.3))

    def judged(item: RunItem) -> CallPattern:
        if not _asked(item):
            return CallPattern(calls=0, prompt_tokens=0, completion_tokens=0)
        x = item.input
        return CallPattern(calls=1, min_calls=0, max_calls=1, completion_tokens=80,
                           prompt_tokens=prompt_tokens("dialsim_judge", extra=x["question_tokens"] + x["gold_tokens"] + answer_out))

    def restyled(item: RunItem) -> CallPattern:
        if not _asked(item):
            return CallPattern(calls=0, prompt_tokens=0, completion_tokens=0)
        return CallPattern(calls=1, min_calls=0, max_calls=1, completion_tokens=item.input["question_tokens"] + 10,
                           prompt_tokens=prompt_tokens("dialsim_style", extra=item.input["question_tokens"] + 60))

    where = f"{memory} @ {config.time_limit:g}s"
    lines = [EstimateLine(f"agent: answers ({where})", model, answer, note="1 call per session the plan asks in"),
             EstimateLine(f"agent: warm-up ({where})", model, warm_up, note="1 call per repetition")]
    if memory.endswith("summary"):
        lines.append(EstimateLine(f"agent: session summaries ({where})", model, summary, note="1 call per session"))
    if fmt != "mc" and judge:
        lines.append(EstimateLine(f"judge ({where})", judge, judged,
                                  note="answers matching the gold exactly are not judged: at most 1 call"))
    if style:
        lines.append(EstimateLine(f"style ({where})", style, restyled,
                                  note="at most 1 call per question (cached: later runs reuse it)"))
    return lines
