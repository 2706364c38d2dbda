"""Run options set once for a whole command, read by every ``run_items`` call inside it.

A benchmark CLI evaluates several methods through its own helpers, each ending in
``run_items``; rather than threading ``--executor`` / ``--shard`` / ``--max-cost`` / ``--prices``
through all of them, the CLI opens :func:`run_defaults` around the work. Arguments passed to
``run_items`` explicitly still win.
"""

from __future__ import annotations

import contextvars
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any, Iterator

from incanon.runs.executor import Executor
from incanon.runs.prices import Prices
from incanon.runs.shard import Shard


@dataclass(frozen=True)
class RunDefaults:
    """Defaults for ``run_items`` arguments left unset."""

    executor: Executor | None = None
    shard: Shard | None = None
    max_cost: float | None = None
    prices: Prices | None = None
    source: dict[str, Any] | None = None
    """The run-configuration section that started the command (``incanon run``), stored with its runs."""


_current: contextvars.ContextVar[RunDefaults] = contextvars.ContextVar(
    "incanon_run_defaults", default=RunDefaults())


def current_defaults() -> RunDefaults:
    """The defaults in force here."""
    return _current.get()


@contextmanager
def run_defaults(**values: Any) -> Iterator[RunDefaults]:
    """Within the block, ``run_items`` uses these ``executor``, ``shard``, ``max_cost``,
    ``prices`` unless given them (``asyncio.run`` inside the block sees them too)."""
    if "shard" in values and values["shard"] is not None:
        values["shard"] = Shard.parse(values["shard"])
    defaults = replace(_current.get(), **values)
    token = _current.set(defaults)
    try:
        yield defaults
    finally:
        _current.reset(token)
