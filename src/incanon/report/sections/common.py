"""Helpers the section modules share."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from incanon.report.model import Block


def report_blocks(report: Any) -> list[Block]:
    """The blocks of a benchmark's report object (its ``doc()``), as a section shows them: the
    report's own title left out, headings from level 3."""
    return report.doc().section_blocks()


def row_labels(pairs: Sequence[tuple[str, str]]) -> list[str]:
    """``method`` when every row has the same model, else ``model / method``."""
    if len({model for model, _ in pairs}) <= 1:
        return [method for _, method in pairs]
    return [f"{model} / {method}" for model, method in pairs]


def pct(value: float | None) -> float | None:
    """A 0-1 rate in percent (None stays None)."""
    return None if value is None else value * 100.0
