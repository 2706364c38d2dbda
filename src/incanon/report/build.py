"""Build a report from stored runs: one section per benchmark, in the order runs were given."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timezone

from incanon.errors import ConfigError, IncanonError
from incanon.report.charts import score_distributions
from incanon.report.model import Report, RunOverview, Section
from incanon.report.overview import config_blocks, run_overview, score_table, usage_table
from incanon.report.registry import SectionParts, builder_for
from incanon.report.sections.generic import generic_parts
from incanon.runs import RunStore


def _family(benchmark: str) -> str:
    builder = builder_for(benchmark)
    return builder.family if builder else benchmark


def build_section(store: RunStore, runs: Sequence[RunOverview]) -> Section:
    """The section of ``runs`` (all of one benchmark family). When the benchmark's report
    module is missing or cannot build its tables, the section says why and shows the generic
    score table, so one bad section never stops a report."""
    benchmark = runs[0].benchmark
    builder = builder_for(benchmark)
    notes: list[str] = []
    parts: SectionParts | None = None
    if builder is not None:
        try:
            parts = builder.build(store, runs)
        except ModuleNotFoundError as exc:
            if not (exc.name or "").startswith("incanon."):
                raise
            notes.append(f"the {builder.family} report module is not available ({exc.name}): "
                         "only the generic score table is shown")
        except IncanonError as exc:
            notes.append(f"the {builder.family} tables could not be built: {exc}")
    if parts is None:
        parts = generic_parts(store, runs)
    charts = list(parts.charts)
    wanted = True if builder is None else builder.distributions
    if wanted is not False:
        charts += score_distributions(store, runs, None if wanted is True else wanted)
    return Section(
        benchmark=builder.family if builder else benchmark,
        title=builder.title if builder else f"{benchmark} (no paper layout: scores per run)",
        runs=list(runs), blocks=parts.blocks, charts=charts, scores=score_table(runs),
        configuration=config_blocks(runs), costs=usage_table(runs), notes=notes + parts.notes, data=parts.data,
    )


def build_report(store: RunStore, refs: Sequence[str], *, title: str | None = None) -> Report:
    """The report of the runs ``refs`` (ids or unique prefixes) of ``store``; no model is called."""
    ids = list(dict.fromkeys(store.resolve(ref) for ref in refs))
    if not ids:
        raise ConfigError("no run given: name one or more run ids (see `incanon runs list`)")
    groups: dict[str, list[RunOverview]] = {}
    for run_id in ids:
        overview = run_overview(store, run_id)
        groups.setdefault(_family(overview.benchmark), []).append(overview)
    sections = [build_section(store, runs) for runs in groups.values()]
    names = ", ".join(s.benchmark for s in sections)
    return Report(title=title or f"incanon report: {names}", created=datetime.now(timezone.utc),
                  run_store=str(store.path), sections=sections)
