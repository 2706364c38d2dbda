"""Model errors that the retry layer tells apart, and the Retry-After parser.

Backends translate their own exceptions into these, so the retry wrapper needs to know no
backend library. Messages are built by incanon from status codes and server text only: no
object that holds a request (and so an ``Authorization`` header) is ever chained to them.
"""

from __future__ import annotations

import email.utils
import math
import time

from incanon.errors import ModelError


class RetryableError(ModelError):
    """A failure that may go away on its own: 429, 5xx, timeout, lost connection, garbled reply."""

    def __init__(self, message: str, *, status: int | None = None, retry_after: float | None = None):
        super().__init__(message)
        self.status = status
        """HTTP status, when there was one."""
        self.retry_after = retry_after
        """Seconds the server asked us to wait (from ``Retry-After``), if it said."""


class MalformedResponseError(RetryableError):
    """The backend answered, but the body was not a usable completion (bad JSON, no choices)."""


class ContextOverflowError(ModelError):
    """The prompt does not fit the model's context window; retrying cannot help."""

    def __init__(self, message: str, *, prompt_tokens: int | None, n_ctx: int | None):
        super().__init__(message)
        self.prompt_tokens = prompt_tokens
        self.n_ctx = n_ctx


class RetryExhaustedError(ModelError):
    """Every attempt failed; ``errors`` holds each attempt's error, ``__cause__`` the last one."""

    def __init__(self, message: str, *, errors: list[BaseException]):
        super().__init__(message)
        self.errors = errors

    @property
    def last_error(self) -> BaseException:
        """The error of the final attempt."""
        return self.errors[-1]


def parse_retry_after(value: str | None, *, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header: delta-seconds or an HTTP-date.

    Returns ``None`` for a missing or unreadable header, and never a negative number.
    """
    if value is None:
        return None
    value = value.strip()
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        pass
    else:
        return max(0.0, seconds) if math.isfinite(seconds) else None
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    current = time.time() if now is None else now
    return max(0.0, when.timestamp() - current)


def scrub(text: str, *secrets: str | None) -> str:
    """``text`` with every non-empty secret replaced, for messages built from server replies."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return text
