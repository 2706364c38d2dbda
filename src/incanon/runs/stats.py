"""Aggregates the run store computes in SQL, turned into result objects."""

from __future__ import annotations

import math
from typing import Iterable, Sequence

from incanon.models.types import Usage
from incanon.runs.records import ScoreStat


def mean_sem(n: int, total: float, total_sq: float) -> tuple[float | None, float | None]:
    """Mean and standard error of the mean from a count, a sum and a sum of squares.

    SEM uses the sample standard deviation (n - 1); it is undefined (None) below two values.
    """
    if n <= 0:
        return None, None
    mean = total / n
    if n < 2:
        return mean, None
    # Rounding can push a zero variance slightly negative; clamp it.
    variance = max(0.0, (total_sq - total * total / n) / (n - 1))
    return mean, math.sqrt(variance / n)


def score_stats(rows: Iterable[Sequence]) -> list[ScoreStat]:
    """``(name, n, sum, sum of squares, missing)`` rows → one :class:`ScoreStat` each."""
    stats = []
    for name, n, total, total_sq, missing in rows:
        n = int(n or 0)
        mean, sem = mean_sem(n, float(total or 0.0), float(total_sq or 0.0))
        stats.append(ScoreStat(name=name, n=n, mean=mean, sem=sem, missing=int(missing or 0)))
    return stats


def usage_from_sums(row: Sequence) -> Usage:
    """A row of per-field usage sums (in ``Usage`` field order) → a :class:`Usage`."""
    values = dict(zip(Usage.model_fields, row))
    return Usage(
        **{
            name: (int(value) if Usage.model_fields[name].annotation is int else float(value))
            for name, value in values.items()
        }
    )
