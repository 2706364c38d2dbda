"""Streaming a completion's text while the model writes it.

A caller that wants the text of one call as it is written opens ``streaming_to(callback)``
around that call; a backend that can stream (the embedded one, OpenAI-compatible ones) then
generates piece by piece, hands each piece to ``callback`` on the event loop, and still
returns the whole :class:`~incanon.models.types.Completion`. Every wrapper (accounting, cache,
retry, concurrency limit) keeps working unchanged because the call is still one ``generate``.
A backend that cannot stream, or a cache hit, sends nothing: the caller sends the whole text
itself when the call returns.

The callback only ever sees one growing text: when retry runs a call again after some pieces
went out, the new attempt's pieces are forwarded only past what was already sent (and nothing
more when the new attempt says something else, which the caller then notices at the end).

Backends also offer ``stream(messages, params)``, an async iterator of pieces, for callers that
want the pieces themselves; :func:`stream_text` falls back to the whole text for the others.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from incanon.models.types import ChatModel, GenerationParams, Message

PieceCallback = Callable[[str], None]


class _Relay:
    """Forwards one growing text to the callback across attempts (see the module docstring)."""

    def __init__(self, callback: PieceCallback) -> None:
        self.callback = callback
        self.sent = ""

    def attempt(self) -> PieceCallback:
        """A writer for one attempt of the call."""
        text = ""

        def write(piece: str) -> None:
            nonlocal text
            if not piece:
                return
            text += piece
            if text.startswith(self.sent) and len(text) > len(self.sent):
                self.callback(text[len(self.sent):])
                self.sent = text

        return write


_relay: contextvars.ContextVar[_Relay | None] = contextvars.ContextVar("incanon_stream_relay", default=None)


@contextmanager
def streaming_to(callback: PieceCallback) -> Iterator[None]:
    """Within the block, streaming backends hand the text of their calls to ``callback``
    (called on the event loop's thread, piece by piece)."""
    token = _relay.set(_Relay(callback))
    try:
        yield
    finally:
        _relay.reset(token)


def piece_writer() -> PieceCallback | None:
    """For a backend starting one attempt of a call: where its pieces go, or None when nobody
    asked for them (then it generates whole, as before)."""
    relay = _relay.get()
    return relay.attempt() if relay is not None else None


def thread_safe(write: PieceCallback, loop: asyncio.AbstractEventLoop) -> PieceCallback:
    """``write`` callable from a worker thread: the piece is handed over on ``loop``."""
    return lambda piece: loop.call_soon_threadsafe(write, piece)


async def pieces_of(produce: Callable[[PieceCallback], Any]) -> AsyncIterator[str]:
    """Run ``produce(write)`` (a coroutine function that calls ``write`` per piece) and yield
    the pieces as they come; its exception, if any, is raised after the pieces before it."""
    queue: asyncio.Queue[str | None] = asyncio.Queue()

    async def run() -> None:
        try:
            await produce(queue.put_nowait)
        finally:
            queue.put_nowait(None)

    task = asyncio.ensure_future(run())
    try:
        while (piece := await queue.get()) is not None:
            yield piece
        await task  # re-raises a failure
    finally:
        if not task.done():
            task.cancel()


async def stream_text(model: ChatModel, messages: Sequence[Message],
                      params: GenerationParams | None = None) -> AsyncIterator[str]:
    """The text of one call as pieces: through ``model.stream`` when it has one, else the
    whole completion as one piece (scripted models, wrappers)."""
    stream = getattr(model, "stream", None)
    if stream is not None:
        async for piece in stream(messages, params):
            yield piece
        return
    completion = await model.generate(messages, params)
    if completion.text:
        yield completion.text


class StreamsPieces:
    """``generate`` and ``stream`` for a backend whose ``_generate(messages, params, write)``
    hands its text to ``write`` piece by piece (``write`` None: no one is listening)."""

    async def _generate(self, messages: Any, params: Any, write: PieceCallback | None) -> Any:
        # The one method a backend using this mixin defines.
        raise NotImplementedError(f"{type(self).__name__} does not define _generate(messages, params, write)")

    async def generate(self, messages: Any, params: Any = None) -> Any:
        """One completion; inside :func:`streaming_to` its text is handed over as it comes."""
        return await self._generate(messages, params, piece_writer())

    async def stream(self, messages: Any, params: Any = None) -> AsyncIterator[str]:
        """The completion's text, piece by piece as it is written."""
        async for piece in pieces_of(lambda write: self._generate(messages, params, write)):
            yield piece
