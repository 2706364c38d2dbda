"""Per-client limits of the ``/v1`` endpoints: a few requests run, more wait their turn, and
only past the queue is a request refused.

A front end sends bursts (a chat turn plus its title, tags and follow-up tasks; a group chat's
characters at once; a script's batch). Refusing everything past the running slots made one
front end's normal traffic fail (429 for 196 of 200 parallel chats); queueing keeps the cap on
what one client has running (the model's budget) while its burst is served in order.
"""

from __future__ import annotations

import asyncio
from collections import deque
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from collections.abc import AsyncIterator


@dataclass
class _Client:
    running: int = 0
    waiting: deque[asyncio.Future[None]] = field(default_factory=deque)


class QueueFull(Exception):
    """The client has ``running`` requests running and ``queue`` more waiting already."""


class ClientLimits:
    """``running`` requests at once per client, up to ``queue`` more waiting (first come, first
    served); :meth:`slot` raises :class:`QueueFull` beyond that. Used from one event loop."""

    def __init__(self, running: int, queue: int) -> None:
        if running < 1 or queue < 0:
            raise ValueError("running must be at least 1 and queue at least 0")
        self.running = running
        self.queue = queue
        self._clients: dict[str, _Client] = {}

    def state(self, client: str) -> tuple[int, int]:
        """(running, waiting) requests of ``client``."""
        found = self._clients.get(client)
        return (found.running, len(found.waiting)) if found else (0, 0)

    def totals(self) -> dict[str, int]:
        """Requests running and waiting over every client (no client is named)."""
        return {"running": sum(c.running for c in self._clients.values()),
                "waiting": sum(len(c.waiting) for c in self._clients.values())}

    async def acquire(self, client: str) -> None:
        """Take a running slot for ``client``, waiting in line when all are taken."""
        entry = self._clients.setdefault(client, _Client())
        if entry.running < self.running and not entry.waiting:
            entry.running += 1
            return
        if len(entry.waiting) >= self.queue:
            if not entry.running and not entry.waiting:
                del self._clients[client]
            raise QueueFull(client)
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        entry.waiting.append(turn)
        try:
            await turn  # release() hands its slot over: running stays counted
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self.release(client)  # the slot came as the waiter left: pass it on
            else:
                entry.waiting.remove(turn)
                self._forget(client)
            raise

    def release(self, client: str) -> None:
        """Give ``client``'s slot back, to the next in line if any."""
        entry = self._clients.get(client)
        if entry is None:
            return
        while entry.waiting:
            turn = entry.waiting.popleft()
            if not turn.done():
                turn.set_result(None)
                return
        entry.running -= 1
        self._forget(client)

    def _forget(self, client: str) -> None:
        entry = self._clients.get(client)
        if entry is not None and entry.running <= 0 and not entry.waiting:
            del self._clients[client]

    @asynccontextmanager
    async def slot(self, client: str) -> AsyncIterator[None]:
        """A running slot for the ``with`` block."""
        await self.acquire(client)
        try:
            yield
        finally:
            self.release(client)
