"""The cells and rows of TimeChara's Table 5, shared by the report builder and its markdown
renderer (kept apart so neither imports the other's module back)."""

from __future__ import annotations

import math

from pydantic import BaseModel

from incanon.bench.timechara.items import DATA_TYPES

COLUMNS = (*DATA_TYPES, "avg", "personality")
HEADERS = {"future": "Future", "past-absence": "Past-absence", "past-presence": "Past-presence",
           "past-only": "Past-only", "avg": "Avg.", "personality": "Personality (1-7)"}


class Stat(BaseModel):
    """Mean ± SEM of one cell; consistency cells in percent, personality in points."""

    n: int = 0
    mean: float | None = None
    sem: float | None = None
    missing: int = 0
    """Items of the cell without a score (a judge gave none)."""

    def text(self, digits: int) -> str:
        """``46.5 ± 3.5`` (``-`` when empty)."""
        if self.mean is None:
            return "-"
        return f"{self.mean:.{digits}f}" + (f" ± {self.sem:.{digits}f}" if self.sem is not None else "")


def stat(values: list[float | None], scale: float = 1.0) -> Stat:
    """Mean and SEM of the values that are not None, times ``scale``."""
    present = [v for v in values if v is not None]
    n = len(present)
    if n == 0:
        return Stat(missing=len(values))
    mean = sum(present) / n
    sem = None
    if n > 1:
        variance = sum((v - mean) ** 2 for v in present) / (n - 1)
        sem = math.sqrt(variance / n) * scale
    return Stat(n=n, mean=mean * scale, sem=sem, missing=len(values) - n)


class TableRow(BaseModel):
    """One row: a model × method (× group, in breakdowns)."""

    model: str
    method: str
    group: str | None = None
    items: int
    cells: dict[str, Stat]
    time_only: int = 0
    """Items answered by a method that cuts by witness (in-canon) with a time cut only: the canon
    store has no record of the row's character, so it read everything up to the time point."""

    @property
    def label(self) -> str:
        """The method as the table shows it: ``in-canon (time only)`` when every item ran with
        the time cut only, ``in-canon (time only: 3/20)`` when some did."""
        if not self.time_only:
            return self.method
        share = "" if self.time_only == self.items else f": {self.time_only}/{self.items}"
        return f"{self.method} (time only{share})"


__all__ = ["COLUMNS", "HEADERS", "Stat", "TableRow", "stat"]
