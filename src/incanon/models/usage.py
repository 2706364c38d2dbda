"""Usage meters: who spent which calls and tokens.

The accounting wrapper reports every call to the meters active in the current async context,
so a runner can open a meter per item and a CLI command a meter per run without threading
objects through every call.
"""

from __future__ import annotations

import contextvars
from contextlib import contextmanager
from typing import Iterator

from incanon.models.types import Usage


class UsageMeter:
    """Adds up usage, overall and per model name."""

    def __init__(self) -> None:
        self.total = Usage()
        self.by_model: dict[str, Usage] = {}

    def add(self, model: str, usage: Usage) -> None:
        """Record ``usage`` spent on ``model``."""
        self.total = self.total + usage
        self.by_model[model] = self.by_model.get(model, Usage()) + usage


_active: contextvars.ContextVar[tuple[UsageMeter, ...]] = contextvars.ContextVar(
    "incanon_usage_meters", default=()
)


@contextmanager
def metered() -> Iterator[UsageMeter]:
    """Open a meter that sees every model call made inside the ``with`` block (async-safe)."""
    meter = UsageMeter()
    token = _active.set(_active.get() + (meter,))
    try:
        yield meter
    finally:
        _active.reset(token)


def record_usage(model: str, usage: Usage) -> None:
    """Report usage to every meter active in this context."""
    for meter in _active.get():
        meter.add(model, usage)
