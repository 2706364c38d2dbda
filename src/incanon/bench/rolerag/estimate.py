"""The model calls of a RoleRAG evaluation, for ``incanon rolerag eval --dry-run``.

Mirrors :func:`incanon.bench.rolerag.evaluate.make_task`: the method's calls (declared on each
agent), then the three judges (KE, KH, UQJ) once each, with one repair call each when a rating
is unreadable (counted in the maximum only). The ``profile`` method also builds one profile per
character and position, up to ``MAX_NOTES`` note calls and one summary call, counted here at
that maximum on the first question of each character (fewer chunks mention a minor character).
"""

from __future__ import annotations

from typing import Sequence

from incanon.bench.rolerag.items import RoleRAGQuestion
from incanon.bench.rolerag.profile import MAX_NOTES
from incanon.bench.sizing import prompt_tokens
from incanon.runs.estimate import CallPattern, EstimateLine
from incanon.runs.records import RunItem
from incanon.templates import PromptLibrary

ANSWER_TOKENS = 150
"""Length of the answer the judges read (the methods answer within 200 tokens)."""
VERDICT_TOKENS = 150
"""An analysis, then ``Rating: N``."""
DESCRIPTION_TOKENS = 120
"""A character description when the question carries none (the canon's profile)."""
CHUNK_TOKENS = 300
"""A story chunk a profile note is written from."""


def judge_lines(judge: str, prompts: PromptLibrary | None = None) -> list[EstimateLine]:
    """KE, KH and UQJ on ``judge``: one call each per question."""
    lines = []
    for name, template in (("KE", "rolerag_judge_ke"), ("KH", "rolerag_judge_kh"), ("UQJ", "rolerag_judge_uqj")):
        def hook(item: RunItem, template: str = template) -> CallPattern:
            q = RoleRAGQuestion.model_validate(item.input)
            extra = ANSWER_TOKENS + (0 if q.description else DESCRIPTION_TOKENS)
            size = prompt_tokens(template, [q.character, q.question, q.description], prompts, extra=extra)
            return CallPattern(calls=1, min_calls=1, max_calls=2, prompt_tokens=size, completion_tokens=VERDICT_TOKENS)

        lines.append(EstimateLine(f"judge: {name}", judge, hook, note="1 call per question"))
    return lines


def profile_line(items: Sequence[RoleRAGQuestion], model: str, prompts: PromptLibrary | None = None) -> EstimateLine:
    """The profile method's profile building: at most ``MAX_NOTES + 1`` calls per character and
    position, charged to the first question of each."""
    first: set[str] = set()
    seen: set[tuple[str, str | None, str | None]] = set()
    for q in items:
        key = (q.character, q.work, q.at)
        if key not in seen:
            seen.add(key)
            first.add(q.id)
    size = (prompt_tokens("rolerag_profile_part", extra=CHUNK_TOKENS, prompts=prompts) * MAX_NOTES
            + prompt_tokens("rolerag_profile", extra=MAX_NOTES * 60, prompts=prompts)) // (MAX_NOTES + 1)

    def hook(item: RunItem) -> CallPattern:
        calls = MAX_NOTES + 1 if item.id in first else 0
        return CallPattern(calls=calls, min_calls=0, max_calls=calls, prompt_tokens=size, completion_tokens=90)

    return EstimateLine("agent: profile building", model, hook,
                        note=f"at most {MAX_NOTES} notes + 1 summary per character and position")
