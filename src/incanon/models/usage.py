"""Usage meters: who spent which calls and tokens.

The accounting wrapper reports every call to the meters active in the current async context,
so a runner can open a meter per item and a CLI command a meter per run without threading
objects through every call.
"""

from __future__ import annotations

import contextvars

from incanon.models.types import Usage


class UsageMeter:
    """Adds up usage, overall and per model name."""

    def __init__(self) -> None:
        self.total = Usage()
        self.by_model: dict[str, Usage] = {}

    def add(self, model: str, usage: Usage) -> None:
        """Record ``usage`` spent on ``model``."""
        self.total = self.total + usage
        known = self.by_model.get(model)
        self.by_model[model] = usage if known is None else known + usage


_active: contextvars.ContextVar[tuple[UsageMeter, ...]] = contextvars.ContextVar(
    "incanon_usage_meters", default=()
)


class metered:  # noqa: N801 - used like the function it replaced: ``with metered() as meter``
    """Open a meter that sees every model call made inside the ``with`` block (async-safe).

    A class rather than a generator-based context manager: the runner opens one per sample,
    and this is several times cheaper."""

    __slots__ = ("meter", "_token")

    def __init__(self) -> None:
        self.meter = UsageMeter()

    def __enter__(self) -> UsageMeter:
        self._token = _active.set(_active.get() + (self.meter,))
        return self.meter

    def __exit__(self, *exc: object) -> None:
        _active.reset(self._token)


def record_usage(model: str, usage: Usage) -> None:
    """Report usage to every meter active in this context."""
    for meter in _active.get():
        meter.add(model, usage)
