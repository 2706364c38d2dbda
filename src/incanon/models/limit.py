"""Concurrency limit per endpoint: all models that talk to one server share one gate.

A gate counts the calls in flight at its endpoint; a call starts only when fewer than *its
model's* limit are in flight there. So two models of one server with limit 4 never have more
than 4 calls open together, and a model with limit 1 waits until the endpoint is idle. Gates
belong to an event loop (asyncio primitives do), so they are kept per loop.
"""

from __future__ import annotations

import asyncio
import weakref
from collections import Counter, deque
from contextlib import asynccontextmanager
from typing import AsyncIterator, Sequence

from incanon.models.types import ChatModel, Completion, GenerationParams, Message


class EndpointGate:
    """Counts calls in flight at one endpoint and lets a call in while under its limit.

    Waiters queue in arrival order; a freed slot wakes only the waiters that fit under their
    own limit (a condition variable woke every waiter on every release: with hundreds queued
    that was most of a fast endpoint's client CPU)."""

    def __init__(self) -> None:
        self.active = 0
        """Calls in flight now."""
        self._waiters: deque[tuple[int, asyncio.Future[None]]] = deque()
        self._limits: Counter[int] = Counter()
        """How many waiters have each limit (the widest decides whether anyone can enter)."""

    async def acquire(self, limit: int) -> None:
        """Take one of the endpoint's slots, waiting until fewer than ``limit`` are taken; pair
        with :meth:`release`. (A plain coroutine: a free slot is taken without suspending.)"""
        if self.active < limit and not self._waiters:
            self.active += 1
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        entry = (limit, waiter)
        self._waiters.append(entry)
        self._limits[limit] += 1
        self._wake()  # others wait on a narrower limit: this one may fit at once
        try:
            await waiter  # the slot is counted for us when we are woken
        except BaseException:
            if waiter.done() and not waiter.cancelled():
                self.release()  # woken, then cancelled before using the slot: hand it on
            elif entry in self._waiters:
                self._waiters.remove(entry)
                self._forget(limit)
            raise

    @asynccontextmanager
    async def slot(self, limit: int) -> AsyncIterator[None]:
        """Hold one of the endpoint's slots, waiting until fewer than ``limit`` are taken."""
        await self.acquire(limit)
        try:
            yield
        finally:
            self.release()

    def release(self) -> None:
        """Give back a slot taken with :meth:`acquire`."""
        self.active -= 1
        self._wake()

    def _wake(self) -> None:
        # Arrival order, each against its own limit: a narrow waiter that does not fit yet does
        # not hold back a wider one behind it. With one limit (the usual case) the first
        # waiter fits or nobody does, so a release costs O(1).
        while self._waiters and self.active < max(self._limits):
            found = next((i for i, (limit, _) in enumerate(self._waiters) if self.active < limit), None)
            if found is None:
                return
            limit, waiter = self._waiters[found]
            del self._waiters[found]
            self._forget(limit)
            if waiter.cancelled():
                continue  # its task has not run its cleanup yet: nothing to hand it
            self.active += 1
            waiter.set_result(None)

    def _forget(self, limit: int) -> None:
        self._limits[limit] -= 1
        if not self._limits[limit]:
            del self._limits[limit]


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
        self._gate: tuple[weakref.ref[asyncio.AbstractEventLoop], EndpointGate] | None = None
        """The gate last used, with its loop (held weakly: a closed loop is not kept alive)."""

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
        # The gate found once per loop, and acquire/release rather than a context manager: this
        # runs on every call, and at 64 calls in flight its CPU delays the replies waiting.
        loop = asyncio.get_running_loop()
        cached = self._gate
        if cached is not None and cached[0]() is loop:
            gate = cached[1]
        else:
            gate = endpoint_gate(self.endpoint)
            self._gate = (weakref.ref(loop), gate)
        await gate.acquire(self.limit)
        try:
            return await self.inner.generate(messages, params)
        finally:
            gate.release()
