"""Concurrency limit per endpoint: all models that talk to one server share one gate.

A gate counts the calls in flight at its endpoint; a call starts only when fewer than *its
model's* limit are in flight there. So two models of one server with limit 4 never have more
than 4 calls open together, and a model with limit 1 waits until the endpoint is idle. Gates
belong to an event loop (asyncio primitives do), so they are kept per loop.
"""

from __future__ import annotations

import asyncio
import weakref
from contextlib import asynccontextmanager
from typing import AsyncIterator, Sequence

from incanon.models.types import ChatModel, Completion, GenerationParams, Message


class EndpointGate:
    """Counts calls in flight at one endpoint and lets a call in while under its limit."""

    def __init__(self) -> None:
        self.active = 0
        """Calls in flight now."""
        self._changed = asyncio.Condition()

    @asynccontextmanager
    async def slot(self, limit: int) -> AsyncIterator[None]:
        """Hold one of the endpoint's slots, waiting until fewer than ``limit`` are taken."""
        async with self._changed:
            await self._changed.wait_for(lambda: self.active < limit)
            self.active += 1
        try:
            yield
        finally:
            async with self._changed:
                self.active -= 1
                # Waiters may have different limits, so each one re-checks its own.
                self._changed.notify_all()


_per_loop: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, EndpointGate]]" = (
    weakref.WeakKeyDictionary()
)


def endpoint_gate(endpoint: str) -> EndpointGate:
    """The gate of ``endpoint`` in the running event loop."""
    table = _per_loop.setdefault(asyncio.get_running_loop(), {})
    gate = table.get(endpoint)
    if gate is None:
        gate = table[endpoint] = EndpointGate()
    return gate


def endpoint_of(model: ChatModel) -> str:
    """The endpoint a model talks to: its ``endpoint`` attribute (base URL, file) or its name."""
    return str(getattr(model, "endpoint", None) or model.name)


class ConcurrencyLimitedModel:
    """At most ``limit`` calls in flight at the endpoint, counting every model of that endpoint."""

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
        """Wait for a free slot at the endpoint, then generate."""
        async with endpoint_gate(self.endpoint).slot(self.limit):
            return await self.inner.generate(messages, params)
