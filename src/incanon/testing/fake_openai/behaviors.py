"""What the fake server can be told to do with a request, and what it logs about each one."""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from typing import Any, Union

import numpy as np

# -- behaviours -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Reply:
    """A normal 200 reply; ``text`` None means by rule or echo. ``delay`` is waited first."""

    text: str | None = None
    delay: float = 0.0
    finish_reason: str = "stop"


@dataclass(frozen=True)
class HTTPError:
    """An error status with an OpenAI-style error body and optional ``Retry-After``."""

    status: int = 400
    message: str = "bad request"
    retry_after: str | None = None


def RateLimited(retry_after: str | None = "1") -> HTTPError:  # noqa: N802 - reads as a behaviour
    """429 with ``Retry-After`` (seconds, an HTTP-date, or None for no header)."""
    return HTTPError(429, "rate limit reached", retry_after)


def ServerError(status: int = 500, retry_after: str | None = None) -> HTTPError:  # noqa: N802
    """A 5xx (500, 502, 503, ...)."""
    return HTTPError(status, "the server had an error", retry_after)


@dataclass(frozen=True)
class Hang:
    """Say nothing for ``seconds`` (longer than the client's timeout), then reply normally."""

    seconds: float = 30.0


@dataclass(frozen=True)
class Malformed:
    """A 200 whose body is not a usable completion (default: truncated JSON)."""

    body: str = '{"id": "chatcmpl-broken", "choices": [{"message": '

    @classmethod
    def no_choices(cls) -> "Malformed":
        """Valid JSON with an empty ``choices`` list."""
        return cls(json.dumps({"id": "chatcmpl-x", "object": "chat.completion", "created": 0,
                               "model": "fake", "choices": []}))


@dataclass(frozen=True)
class SlowBody:
    """A normal reply whose body is sent in ``pieces`` with ``interval`` seconds between them."""

    pieces: int = 5
    interval: float = 0.1
    text: str | None = None


@dataclass(frozen=True)
class Disconnect:
    """Close the connection without any reply."""


Behavior = Union[Reply, HTTPError, Hang, Malformed, SlowBody, Disconnect]


# -- request log ----------------------------------------------------------------------------


def key_fingerprint(key: str) -> str:
    """Short sha256 of an API key: what the log keeps instead of the key."""
    return "sha256:" + hashlib.sha256(key.encode()).hexdigest()[:12]


@dataclass
class LoggedRequest:
    """One request the server received."""

    method: str
    path: str
    headers: dict[str, str]
    """Lower-case names; ``authorization`` holds a fingerprint, never the key."""
    body: Any
    """Parsed JSON body (None when absent or not JSON)."""
    started: float = field(default_factory=time.monotonic)
    finished: float | None = None
    status: int | None = None
    behavior: str = ""

    @property
    def last_message(self) -> str:
        """Content of the last chat message, or ''."""
        try:
            return str(self.body["messages"][-1]["content"])
        except (TypeError, KeyError, IndexError):
            return ""


def tokens(text: str) -> int:
    return len(text.split())


def fake_vector(text: str, dim: int) -> np.ndarray:
    """The deterministic unit vector the server returns for ``text``."""
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
    v = np.random.default_rng(seed).standard_normal(dim).astype(np.float32)
    return v / np.linalg.norm(v)
