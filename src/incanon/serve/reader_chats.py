"""The web app's chats under a reader position (``?reader_at=`` on ``/api``, else the server's
``--reader-at``): a chat starts, moves and answers only at or before it.

Each function reads the canon store with a connection of its own (call it in a worker thread)
and returns what the route passes on; with no reader position in force it changes nothing.
"""

from __future__ import annotations

from incanon.canon.position import Position
from incanon.canon.store import CanonStore
from incanon.errors import IncanonError
from incanon.serve.config import ServeConfig
from incanon.serve.reader import READER_PARAM, ReaderView, ViewOf, reader_target, resolve_at


def _views(config: ServeConfig, reader_at: str | None) -> ViewOf | None:
    if reader_at is None and config.reader_at is None:
        return None
    return ViewOf(config.reader_at, reader_at, spoilers=config.spoilers, field=READER_PARAM)


def chat_target(config: ServeConfig, work: str | None, character: str, at: str,
                reader_at: str | None) -> tuple[str | None, str, str]:
    """``(work, character, at)`` of a new chat as a reader at ``reader_at`` may start it
    (:func:`~incanon.serve.reader.reader_target`, the query parameter named in errors)."""
    return reader_target(config, work, character, at, reader_at, READER_PARAM)


def _view(store: CanonStore, views: ViewOf, work: str) -> ReaderView:
    return views(store.work(work))


def _past(view: ReaderView) -> str:
    # The chat's own position is the client's already; the reader's is theirs: neither tells more.
    return (f"this chat stands past how far you have read ({view.at}): move it to {view.at} or before "
            "(the slider, or /at), or start a new chat")


def past_reader(config: ServeConfig, work: str, position: Position, reader_at: str | None) -> str | None:
    """Why a chat of ``work`` standing at ``position`` may not answer a reader at ``reader_at``
    (None: it may)."""
    views = _views(config, reader_at)
    if views is None:
        return None
    with CanonStore.open(config.canon) as store:
        view = _view(store, views, work)
    return None if view.shows(position) else _past(view)


def reader_line(config: ServeConfig, work: str, character: str, position: Position, line: str,
                reader_at: str | None) -> tuple[str, str | None]:
    """``(line, error)`` for a chat line said as a reader at ``reader_at``: ``/at X`` with X
    resolved at or before the reader's position (the line rewritten to that position), any
    other line only while the chat stands there. ``error`` is set (and the line not to be run)
    when refused."""
    views = _views(config, reader_at)
    if views is None:
        return line, None
    command, _, arg = line.strip().partition(" ")
    with CanonStore.open(config.canon) as store:
        view = _view(store, views, work)
        if view.at is None:
            return line, None
        if command.lower() == "/at" and arg.strip():
            try:
                moved = resolve_at(store, work, store.character(work, character), arg.strip(), view)
            except IncanonError as exc:  # unknown and later alike: the message names nothing after
                return line, str(exc)
            return f"/at {moved}", None
    return line, None if view.shows(position) else _past(view)
