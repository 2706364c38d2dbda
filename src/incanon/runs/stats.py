"""Aggregates the run store computes in SQL, turned into result objects."""

from __future__ import annotations

import math
import sqlite3
from typing import Iterable, Sequence

from incanon.models.types import Usage
from incanon.runs.records import RunInfo, RunSummary, ScoreStat


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


def summarize(db: sqlite3.Connection, info: RunInfo) -> RunSummary:
    """Counts, mean ± SEM per numeric score (ok samples), usage sums and errors of one run.

    Everything is summed inside SQLite (JSON1), so a 100k-sample run is summarized without
    loading its samples into Python.
    """
    run_id = info.id
    attempts, duration = db.execute(
        "SELECT COALESCE(SUM(attempts), 0), COALESCE(SUM(duration_s), 0) FROM samples WHERE run_id = ?",
        (run_id,),
    ).fetchone()
    usage_row = db.execute(
        "SELECT "
        + ", ".join(f"COALESCE(SUM(json_extract(usage, '$.{f}')), 0)" for f in Usage.model_fields)
        + " FROM samples WHERE run_id = ?",
        (run_id,),
    ).fetchone()
    score_rows = db.execute(
        "SELECT j.key,"
        " SUM(j.type IN ('integer', 'real')),"
        " SUM(CASE WHEN j.type IN ('integer', 'real') THEN j.value END),"
        " SUM(CASE WHEN j.type IN ('integer', 'real') THEN j.value * j.value END),"
        " SUM(j.type = 'null')"
        " FROM samples s, json_each(s.scores) j"
        " WHERE s.run_id = ? AND s.status = 'ok' AND s.scores IS NOT NULL"
        " GROUP BY j.key ORDER BY j.key",
        (run_id,),
    ).fetchall()
    errors = dict(
        db.execute(
            "SELECT COALESCE(error_type, 'Error'), COUNT(*) FROM samples"
            " WHERE run_id = ? AND status = 'error' GROUP BY 1 ORDER BY 2 DESC, 1",
            (run_id,),
        ).fetchall()
    )
    return RunSummary(
        run_id=run_id, status=info.status, ok=info.ok, failed=info.failed, total=info.total,
        scores=score_stats(score_rows), usage=usage_from_sums(usage_row), errors=errors,
        attempts=attempts, duration_s=duration,
    )
