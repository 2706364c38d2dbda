"""Threads that keep blocking work off the web app's event loop.

The server's event loop only reads requests and writes responses. What could block it runs
elsewhere:

* each open chat session lives on its own :class:`LoopThread` (its canon store connection is
  bound to the thread that opened it, and its reads are synchronous SQLite);
* every model call runs on one shared :class:`LoopThread`, through :class:`OnLoopModel`: the
  model's wrappers keep per-loop state (in-flight futures of the response cache, rate limits,
  HTTP connection pools) and the cache's SQLite reads and writes are synchronous, so one loop
  for all calls keeps them consistent and off the server's loop.

A coroutine handed to another loop keeps its caller's context variables (what the chat session
asked of a call, where its streamed text goes), since ``run_coroutine_threadsafe`` creates the
task in a copy of the calling thread's context.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import Any, TypeVar

from incanon.models.types import ChatModel, Completion, GenerationParams, Message

T = TypeVar("T")


class LoopThread:
    """A daemon thread running an event loop of its own; coroutines are submitted to it from
    other threads and awaited from other loops."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_forever()
        finally:
            # As asyncio.run does: what is still pending is cancelled and let finish, so what it
            # holds (a model client's HTTP session) is closed on its own loop, not left to GC.
            pending = asyncio.all_tasks(self.loop)
            for task in pending:
                task.cancel()
            if pending:
                self.loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            self.loop.close()

    @property
    def alive(self) -> bool:
        """True while the loop runs."""
        return self._thread.is_alive() and not self.loop.is_closed()

    async def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on this thread's loop and wait for it from the caller's loop; cancelling
        the caller cancels it there too."""
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self.loop))

    async def call(self, fn: Callable[[], T]) -> T:
        """Run the plain function ``fn`` on this thread (in turn with its coroutines)."""

        async def call_it() -> T:
            return fn()

        return await self.run(call_it())

    def stop(self, *, last: Callable[[], None] | None = None, wait: float = 0.0) -> None:
        """Stop the loop after running ``last`` on the thread (e.g. closing what it owns);
        ``wait``: seconds to wait for the thread to end (0: do not wait)."""

        def finish() -> None:
            try:
                if last is not None:
                    last()
            finally:
                self.loop.stop()

        try:
            self.loop.call_soon_threadsafe(finish)
        except RuntimeError:  # already closed
            return
        if wait > 0 and threading.current_thread() is not self._thread:
            self._thread.join(wait)


class OnLoopModel:
    """A chat model whose calls run on ``host``'s loop, whichever loop awaits them (see the
    module docstring). Anything else is the wrapped model's."""

    def __init__(self, inner: ChatModel, host: LoopThread) -> None:
        self.inner = inner
        self.host = host

    @property
    def name(self) -> str:
        """The wrapped model's name."""
        return self.inner.name

    def __repr__(self) -> str:
        return f"OnLoopModel({self.inner!r})"

    def __getattr__(self, attr: str) -> Any:
        # identity, stream and what else a backend offers come from the wrapped model.
        if attr.startswith("_"):
            raise AttributeError(attr)
        return getattr(self.inner, attr)

    async def generate(self, messages: Sequence[Message], params: GenerationParams | None = None) -> Completion:
        """The wrapped model's completion, made on the model thread."""
        return await self.host.run(_awaited(self.inner.generate(messages, params)))


async def _awaited(awaitable: Awaitable[T]) -> T:
    # run_coroutine_threadsafe takes coroutines only; a model may return any awaitable.
    return await awaitable
