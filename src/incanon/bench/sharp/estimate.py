"""The model calls of a SHARP evaluation, for ``incanon sharp eval --dry-run``.

Mirrors :func:`incanon.bench.sharp.evaluate.make_task`: a role item is the method's calls plus
one stance-detector call; a backbone item (one per claim, with a backbone model) is one backbone
call plus one detector call. The detector makes one repair call when its label is unreadable
(counted in the maximum only).
"""

from __future__ import annotations

from typing import Sequence

from incanon.bench.sizing import prompt_tokens, text_tokens
from incanon.runs.estimate import CallPattern, EstimateLine, call_pattern_of
from incanon.runs.records import RunItem
from incanon.templates import PromptLibrary

NONE = CallPattern(calls=0, prompt_tokens=0, completion_tokens=0)
ANSWER_TOKENS = 120
"""Length of the in-character answer the detector reads (the one-call methods' completion size)."""
BACKBONE_TOKENS = 256
"""The backbone's answer: its token limit (``--max-tokens`` else 256), usually reached."""
STANCE_TOKENS = 60
"""A detector reply: the stance and a one-sentence reason."""


def _claim_text(item: RunItem) -> str:
    return str(item.input["claim"].get("text", ""))


def agent_lines(methods: Sequence[str], model: str) -> list[EstimateLine]:
    """One line per method: its declared pattern on role items, nothing on backbone items."""
    lines = []
    for method in methods:
        pattern = call_pattern_of(method)

        def hook(item: RunItem, pattern=pattern) -> CallPattern:
            if item.input["kind"] != "role":
                return NONE
            return pattern if isinstance(pattern, CallPattern) else pattern(item)

        lines.append(EstimateLine(f"agent: {method}", model, hook, note="role items only"))
    return lines


def judge_lines(detector: str, backbone: str | None, *, prompts: PromptLibrary | None = None,
                max_tokens: int | None = None) -> list[EstimateLine]:
    """The stance detector on every item, and the backbone on backbone items."""
    backbone_out = max_tokens or BACKBONE_TOKENS

    def detect(item: RunItem) -> CallPattern:
        answer = backbone_out if item.input["kind"] == "backbone" else ANSWER_TOKENS
        size = prompt_tokens("sharp_stance", [_claim_text(item), item.input.get("role")], prompts, extra=answer)
        return CallPattern(calls=1, min_calls=1, max_calls=2, prompt_tokens=size, completion_tokens=STANCE_TOKENS)

    def ask(item: RunItem) -> CallPattern:
        if item.input["kind"] != "backbone":
            return NONE
        size = prompt_tokens("sharp_question", [_claim_text(item)], prompts) + text_tokens(_claim_text(item))
        return CallPattern(calls=1, prompt_tokens=size, completion_tokens=backbone_out)

    lines = [EstimateLine("detector: stance", detector, detect, note="1 call per item")]
    if backbone:
        lines.append(EstimateLine("backbone", backbone, ask, note="1 call per claim (no persona)"))
    return lines
