"""Helpers the section modules share."""

from __future__ import annotations

from collections.abc import Sequence

from incanon.report.mdparse import parse_markdown
from incanon.report.model import Block


def paper_blocks(markdown: str) -> list[Block]:
    """A benchmark's markdown report as blocks, without its title (the section has one): a
    leading heading shallower than every other heading is a title, not a table's heading."""
    blocks = parse_markdown(markdown)
    if blocks and blocks[0].kind == "heading":
        others = [b.level for b in blocks[1:] if b.kind == "heading"]
        if all(level > blocks[0].level for level in others):
            blocks = blocks[1:]
            shift = min(others, default=3) - 3
            for b in blocks:
                if b.kind == "heading":
                    b.level -= shift
    return blocks


def row_labels(pairs: Sequence[tuple[str, str]]) -> list[str]:
    """``method`` when every row has the same model, else ``model / method``."""
    if len({model for model, _ in pairs}) <= 1:
        return [method for _, method in pairs]
    return [f"{model} / {method}" for model, method in pairs]


def pct(value: float | None) -> float | None:
    """A 0-1 rate in percent (None stays None)."""
    return None if value is None else value * 100.0
