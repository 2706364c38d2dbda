"""Sampling parameters given in a model spec (``openai/gpt-4o?temperature=0.7&top_p=0.9``).

They are the user's explicit choice for that model, so they replace what the calling method
asks for, on every call. The wrapper sits outside the response cache, so cache keys and run
records see the parameters actually sent.
"""

from __future__ import annotations

from typing import Any, Sequence

from incanon.models.registry import OptionInfo
from incanon.models.types import ChatModel, Completion, GenerationParams, Message

SAMPLING_OPTIONS: dict[str, OptionInfo] = {
    "temperature": OptionInfo(float, "sampling temperature for every call"),
    "top_p": OptionInfo(float, "nucleus sampling for every call"),
    "max_tokens": OptionInfo(int, "completion budget of every call"),
    "seed": OptionInfo(int, "sampling seed of every call"),
    "frequency_penalty": OptionInfo(float, "frequency penalty of every call"),
    "presence_penalty": OptionInfo(float, "presence penalty of every call"),
}
"""Options every chat spec accepts, whatever its backend."""


class SampledModel:
    """Calls ``inner`` with the spec's sampling parameters in place of the caller's."""

    def __init__(self, inner: ChatModel, overrides: dict[str, Any]):
        self.inner = inner
        self.overrides = dict(overrides)

    @property
    def name(self) -> str:
        """The wrapped model's name."""
        return self.inner.name

    def __repr__(self) -> str:
        return f"SampledModel({self.inner!r}, {self.overrides})"

    async def generate(self, messages: Sequence[Message], params: GenerationParams | None = None) -> Completion:
        """``inner.generate`` with the overrides applied to ``params``."""
        effective = (params or GenerationParams()).model_copy(update=self.overrides)
        return await self.inner.generate(messages, effective)
