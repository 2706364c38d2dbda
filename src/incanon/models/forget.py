"""Forgetting an answer the caller could not use.

A step that reads a helper's answer as JSON and cannot (even after its repair turn) records a
failed step. Were that answer kept in the response cache, the same command run again would be
served the same unusable answer for free and fail the same way: only ``--no-cache`` or clearing
the model's whole cache would retry. So such a step calls :func:`forget_answers`, and a rerun
retries exactly the failed steps while every usable answer stays cached.

The caching wrapper marks each completion with its cache entry; wrappers above it (accounting,
sampling, a build's guard, a counter) each keep the next one as ``inner``, so the caching
wrapper is found by walking down.
"""

from __future__ import annotations

from incanon.models.types import ChatModel, Completion

_DEPTH = 16
"""Wrappers walked at most (a cycle of ``inner`` would otherwise never end)."""


def forget_answers(model: ChatModel | object, *completions: Completion | None) -> int:
    """Drop ``completions`` from the response cache under ``model``; how many were dropped (0
    when ``model`` has no cache, or an answer came from elsewhere)."""
    layer: object | None = model
    for _ in range(_DEPTH):
        if layer is None:
            return 0
        forget = getattr(layer, "forget_answer", None)
        if callable(forget):
            return sum(bool(forget(c)) for c in completions if c is not None)
        layer = getattr(layer, "inner", None)
    return 0


__all__ = ["forget_answers"]
