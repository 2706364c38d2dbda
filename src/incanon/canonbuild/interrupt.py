"""Ctrl-C during ``canon build`` stops it at once.

``asyncio.run`` answers the first SIGINT by cancelling its task and then waits for the worker
threads to finish: an embedded llama.cpp generation (hundreds of tokens on a busy CPU) ran on for
minutes, and a synchronous stretch inside the loop (embedding a batch of chunks) was not even
cancelled. Within :func:`sigint_stops_at_once`, SIGINT raises ``KeyboardInterrupt`` in the main
thread wherever it is, as Python's own handler does outside asyncio; ``asyncio.run`` then
cancels its tasks, and a cancelled embedded generation stops at its next token
(:mod:`incanon.models.llama`). Everything the build committed stays: each helper answer is in
the response cache, each store write a transaction, each batch of vectors its own commit.
"""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any, TypeVar

T = TypeVar("T")


def _raise(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


@contextmanager
def sigint_stops_at_once() -> Iterator[None]:
    """Within the block SIGINT raises ``KeyboardInterrupt`` at once (even inside ``asyncio.run``).
    A SIGINT the process was told to ignore (a background job of a shell) stays ignored."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGINT)
    if previous is signal.SIG_IGN:
        yield
        return
    signal.signal(signal.SIGINT, _raise)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def run_stoppable(coro: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(coro)`` for use within :func:`sigint_stops_at_once`. When the interrupt is
    raised inside a task (a step of the build running when the signal lands), the main task ends
    with it only while ``asyncio.run`` cancels what is left, and nothing reads it: asyncio then
    printed "Task exception was never retrieved" and a traceback after the build's one-line
    resume message. Here that end is read, and an interrupt is never logged by the loop: the
    command reports it once."""
    runner = asyncio.Runner()
    loop = runner.get_loop()
    loop.set_exception_handler(_quiet_interrupts)
    task = loop.create_task(coro)
    try:
        return loop.run_until_complete(task)
    finally:
        runner.close()  # cancels what is left; the main task may end here, with the interrupt
        if task.done() and not task.cancelled():
            task.exception()


def _quiet_interrupts(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    if isinstance(context.get("exception"), KeyboardInterrupt):
        return
    loop.default_exception_handler(context)


__all__ = ["run_stoppable", "sigint_stops_at_once"]
