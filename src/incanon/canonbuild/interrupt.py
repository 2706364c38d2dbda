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

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType


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


__all__ = ["sigint_stops_at_once"]
