"""Stop a ``/v1`` chat whose client has gone: its model calls stop and its slots free.

An OpenAI-compatible client that gives up (its timeout, a closed tab, Ctrl-C) does not want the
reply, and a local model answers one call at a time: left running, an abandoned chat holds the
model while the requests behind it wait, and a client that retries after its timeout adds another
chat to the same queue on every attempt. Streams already stop when their client goes (the
streaming response cancels its body); this does the same for a plain JSON reply by racing the
answer against the client's ``http.disconnect``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any, Awaitable, Callable, TypeVar

from incanon.logs import NOTICE

T = TypeVar("T")

log = logging.getLogger(__name__)

Receive = Callable[[], Awaitable[dict[str, Any]]]


class GoneReport:
    """The log lines of chats whose clients went away: the first said at once, the ones that
    follow within ``window_s`` seconds counted and said in one line when the window ends. A
    client that gives up a burst of requests (or retries after each timeout) made a line per
    chat before: 400 lines for two abandoned bursts."""

    def __init__(self, window_s: float = 10.0) -> None:
        self.window_s = window_s
        self.more = 0
        self.last = ""
        self.open = False

    def report(self, what: str) -> None:
        """Say (or count) that ``what``'s client disconnected; call on the event loop."""
        if self.open:
            self.more += 1
            self.last = what
            return
        log.log(NOTICE, "%s: the client disconnected before the answer was ready; its work was stopped", what)
        self.open = True
        asyncio.get_running_loop().call_later(self.window_s, self.flush)

    def flush(self) -> None:
        """End the window: one line for the chats counted in it."""
        if self.more:
            log.log(NOTICE, "%d more chat(s) stopped in %.0f s as their clients disconnected (the last: %s)",
                    self.more, self.window_s, self.last)
        self.more, self.last, self.open = 0, "", False


#: The server's one report (all of a process's chats share the log).
GONE = GoneReport()


class ClientGone(Exception):
    """The client disconnected before its answer was ready; the work was cancelled."""


async def disconnected(receive: Receive) -> None:
    """Return when the ASGI connection reports ``http.disconnect`` (call after the body is read:
    servers then answer ``receive`` only when the client goes or the response is complete)."""
    while True:
        message = await receive()
        if message.get("type") == "http.disconnect":
            return


async def unless_gone(receive: Receive, work: Awaitable[T], what: str) -> T:
    """``await work``, cancelling it and raising :class:`ClientGone` if the client disconnects
    first; ``what`` names the work in the log line."""
    task = asyncio.ensure_future(work)
    watch = asyncio.ensure_future(disconnected(receive))
    try:
        await asyncio.wait({task, watch}, return_when=asyncio.FIRST_COMPLETED)
        if task.done():
            return task.result()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task  # let its cleanup (slots, model calls on other threads) run before we go
        GONE.report(what)
        raise ClientGone(what)
    finally:
        watch.cancel()
        if not task.done():
            task.cancel()  # we were cancelled ourselves
