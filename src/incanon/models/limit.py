"""Concurrency limit per endpoint: all models that talk to one server share one semaphore.

Semaphores belong to an event loop, so they are kept per loop (a test suite runs many loops;
a long-lived program one). For one endpoint the first limit set in a loop holds.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from typing import Sequence

from incanon.models.types import ChatModel, Completion, GenerationParams, Message

log = logging.getLogger(__name__)

_per_loop: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, tuple[int, asyncio.Semaphore]]]" = (
    weakref.WeakKeyDictionary()
)


def endpoint_semaphore(endpoint: str, limit: int) -> asyncio.Semaphore:
    """The semaphore of ``endpoint`` in the running loop, created with ``limit`` on first use."""
    loop = asyncio.get_running_loop()
    table = _per_loop.setdefault(loop, {})
    if endpoint not in table:
        table[endpoint] = (limit, asyncio.Semaphore(limit))
    elif table[endpoint][0] != limit:
        log.warning(
            "endpoint %s already limited to %d concurrent calls; ignoring limit %d",
            endpoint, table[endpoint][0], limit,
        )
    return table[endpoint][1]


def endpoint_of(model: ChatModel) -> str:
    """The endpoint a model talks to: its ``endpoint`` attribute (base URL, file) or its name."""
    return str(getattr(model, "endpoint", None) or model.name)


class ConcurrencyLimitedModel:
    """At most ``limit`` calls in flight per endpoint, across every model of that endpoint."""

    def __init__(self, inner: ChatModel, limit: int, *, endpoint: str | None = None):
        if limit < 1:
            raise ValueError(f"concurrency limit must be at least 1, not {limit}")
        self.inner = inner
        self.limit = limit
        self.endpoint = endpoint or endpoint_of(inner)

    @property
    def name(self) -> str:
        """The wrapped model's name."""
        return self.inner.name

    def __repr__(self) -> str:
        return f"ConcurrencyLimitedModel({self.inner!r}, limit={self.limit})"

    async def generate(
        self, messages: Sequence[Message], params: GenerationParams | None = None
    ) -> Completion:
        """Wait for a free slot of the endpoint, then generate."""
        async with endpoint_semaphore(self.endpoint, self.limit):
            return await self.inner.generate(messages, params)
