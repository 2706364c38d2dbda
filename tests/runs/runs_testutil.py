"""Helpers shared by the run tests (a uniquely named module: importable from any test file)."""

from __future__ import annotations

from incanon.runs import RunItem


def make_items(n: int) -> list[RunItem]:
    """``n`` items ``i0000``, ``i0001``, ... with input ``{"x": k}``."""
    return [RunItem(id=f"i{k:04d}", input={"x": k}) for k in range(n)]
