"""Retrieval with a deadline: the agent's (synchronous) retrieval runs in a worker thread so the
simulator can stop waiting for it when the question's time is up.

A thread cannot be killed, so a retrieval abandoned at its deadline runs on in the background:
the agent is busy until it ends, and the next memory update waits for it first (inside the
update's own time), as a busy real agent would. Its result is thrown away; the question was
already a timeout.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


class DeadlineRunner:
    """Runs blocking steps against a deadline; remembers the one left running past it."""

    def __init__(self) -> None:
        self._pending: asyncio.Future[object] | None = None

    @property
    def busy(self) -> bool:
        """A step abandoned at its deadline is still running."""
        return self._pending is not None and not self._pending.done()

    async def run(self, step: Callable[[], T], timeout: float | None) -> T:
        """``step()`` within ``timeout`` seconds (None: no deadline, run inline); raises
        ``TimeoutError`` when it does not finish in time (it goes on in the background)."""
        await self.settle()
        if timeout is None:
            return step()
        if timeout <= 0:
            raise TimeoutError
        context = contextvars.copy_context()  # usage meters and the like see the step's calls
        future = asyncio.get_running_loop().run_in_executor(None, context.run, step)
        try:
            # shield: the deadline stops our wait, not the future we still have to collect.
            return await asyncio.wait_for(asyncio.shield(future), timeout)
        except TimeoutError:
            self._pending = future
            raise

    async def settle(self) -> None:
        """Wait for a step abandoned at its deadline (its result and errors are dropped)."""
        pending = self._pending
        if pending is None:
            return
        try:
            await asyncio.shield(pending)
        except asyncio.CancelledError:
            if not pending.done():
                raise  # we were cancelled: keep it, the next settle waits again
        except Exception:  # noqa: BLE001 - the question already counted as a timeout
            pass
        self._pending = None
