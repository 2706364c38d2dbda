"""Chart data shared by the section builders: method comparisons and score distributions."""

from __future__ import annotations

from collections.abc import Sequence

from incanon.report.model import Chart, RunOverview, Series
from incanon.runs import RunStore

MAX_DISTRIBUTIONS = 4
"""Score distributions drawn per section, at most (the first scores the runs record)."""


def bar_chart(title: str, categories: Sequence[str], series: Sequence[Series], *, y_label: str = "",
              x_label: str = "", error: str = "", y_range: tuple[float, float] | None = None) -> Chart | None:
    """A grouped bar chart; None when no series has a value (nothing to draw)."""
    if not any(v is not None for s in series for v in s.values):
        return None
    return Chart(kind="bars", title=title, categories=list(categories), series=list(series), y_label=y_label,
                 x_label=x_label, error=error, y_range=y_range)


def run_comparison(runs: Sequence[RunOverview], score: str, title: str = "", scale: float = 1.0,
                   y_label: str = "") -> Chart | None:
    """Mean ± SEM of ``score`` per run (one bar per model / method)."""
    having = [r for r in runs if score in r.scores and r.scores[score].get("mean") is not None]
    if not having:
        return None
    values = [float(r.scores[score]["mean"]) * scale for r in having]  # type: ignore[arg-type]
    errors = [None if r.scores[score].get("sem") is None else float(r.scores[score]["sem"]) * scale  # type: ignore[arg-type]
              for r in having]
    return bar_chart(title or f"{score} by model / method", [r.label for r in having],
                     [Series(name=score, values=values, errors=errors)], y_label=y_label or score, error="SEM")


def _bins(values: Sequence[float]) -> list[float]:
    low, high = min(values), max(values)
    if all(float(v).is_integer() for v in values) and high - low <= 12:
        if low >= 0 and high <= 1:
            low, high = 0, 1  # a pass/fail score shows both outcomes, even when one never occurs
        return [k - 0.5 for k in range(int(low), int(high) + 2)]
    if high == low:
        return [low - 0.5, high + 0.5]
    step = (high - low) / 10
    return [low + i * step for i in range(11)]


def score_distributions(store: RunStore, runs: Sequence[RunOverview], names: Sequence[str] | None = None,
                        limit: int = MAX_DISTRIBUTIONS) -> list[Chart]:
    """One histogram per score (the first ``limit`` the runs record, or ``names``), a series per
    run, over the ok samples' values."""
    chosen = list(names) if names is not None else list(dict.fromkeys(n for r in runs for n in r.scores))[:limit]
    if not chosen:
        return []
    values: dict[str, dict[str, list[float]]] = {n: {} for n in chosen}
    for run in runs:
        for sample in store.samples(run.id, status="ok"):
            for name in chosen:
                value = (sample.scores or {}).get(name)
                if value is not None:
                    values[name].setdefault(run.label, []).append(float(value))
    charts = []
    for name in chosen:
        per_run = values[name]
        every = [v for vs in per_run.values() for v in vs]
        if not every:
            continue
        charts.append(Chart(kind="histogram", title=f"Distribution of {name}", x_label=name, y_label="samples",
                            series=[Series(name=label, values=vs) for label, vs in per_run.items()],
                            bins=_bins(every)))
    return charts
