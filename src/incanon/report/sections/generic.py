"""The section of a benchmark without a report module: the per-run score table (which every
section has) and a comparison chart of its first scores."""

from __future__ import annotations

from collections.abc import Sequence

from incanon.report.charts import run_comparison
from incanon.report.model import RunOverview
from incanon.report.registry import SectionParts
from incanon.runs import RunStore


def generic_parts(store: RunStore, runs: Sequence[RunOverview]) -> SectionParts:
    """Run-comparison charts of the first two scores; the table is added by the report."""
    names = list(dict.fromkeys(n for r in runs for n in r.scores))[:2]
    charts = [c for n in names if (c := run_comparison(runs, n)) is not None]
    return SectionParts(charts=charts)
