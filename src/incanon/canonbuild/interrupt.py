"""Ctrl-C during ``canon build`` stops it at once.

``asyncio.run`` answers the first SIGINT by cancelling its task and then waits for the worker
threads to finish: an embedded llama.cpp generation (hundreds of tokens on a busy CPU) ran on for
minutes, and a synchronous stretch inside the loop (embedding a batch of chunks) was not even
cancelled. Within :func:`sigint_stops_at_once`, SIGINT raises ``KeyboardInterrupt`` in the main
thread wherever it is, as Python's own handler does outside asyncio; ``asyncio.run`` then
cancels its tasks, and a cancelled embedded generation stops at its next token
(:mod:`incanon.models.llama`). Everything the build committed stays: each helper answer is in
the response cache, each store write a transaction, each batch of vectors its own commit.

SIGTERM (``kill``, a container stopping, a service manager) takes the same path: it raises
:class:`Terminated`, a ``KeyboardInterrupt``, so every command that says one line on Ctrl-C says
it on SIGTERM too (``terminated`` instead of ``interrupted``, exit 143 instead of 130) instead of
dying without a word.
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


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where Ctrl-C's ``KeyboardInterrupt`` would be, so it takes the same path."""


def _raise(signum: int, frame: FrameType | None) -> None:
    raise Terminated if signum == signal.SIGTERM else KeyboardInterrupt


def stopped_word(exc: BaseException) -> str:
    """``terminated`` for SIGTERM, else ``interrupted`` (the first word of the one line said)."""
    return "terminated" if isinstance(exc, Terminated) else "interrupted"


def stopped_exit_code(exc: BaseException) -> int:
    """128 + the signal's number, as a shell reports a process that a signal ended: 143 or 130."""
    return 128 + (signal.SIGTERM if isinstance(exc, Terminated) else signal.SIGINT)


@contextmanager
def _raising_on(signum: int) -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signum)
    if previous is signal.SIG_IGN:
        yield
        return
    signal.signal(signum, _raise)
    try:
        yield
    finally:
        signal.signal(signum, previous)


@contextmanager
def sigint_stops_at_once() -> Iterator[None]:
    """Within the block SIGINT raises ``KeyboardInterrupt`` at once (even inside ``asyncio.run``),
    and SIGTERM :class:`Terminated`. A signal the process was told to ignore (SIGINT in a
    background job of a shell) stays ignored."""
    with _raising_on(signal.SIGINT), _raising_on(signal.SIGTERM):
        yield


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


def run_until_stopped(coro: Coroutine[Any, Any, Any]) -> KeyboardInterrupt | None:
    """Run ``coro`` with Ctrl-C and SIGTERM stopping it at once; returns the interrupt that stopped
    it (``KeyboardInterrupt`` or :class:`Terminated`), or None when it ended by itself. For the
    interactive commands (``chat``, ``scene``), which still save what they hold when stopped and
    then say one line."""
    with sigint_stops_at_once():
        try:
            run_stoppable(coro)
        except KeyboardInterrupt as exc:
            return exc
    return None


def _quiet_interrupts(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    if isinstance(context.get("exception"), KeyboardInterrupt):
        return
    loop.default_exception_handler(context)


__all__ = ["Terminated", "run_stoppable", "run_until_stopped", "sigint_stops_at_once", "stopped_exit_code", "stopped_word"]
