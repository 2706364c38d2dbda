"""Section builders by benchmark: which code turns a benchmark's runs into its report section.

A builder gets the run store and the overviews of its runs and returns ``SectionParts``: the
paper-style tables (as blocks), charts, notes and the benchmark's own report data. Built-in
builders (``incanon.report.sections``) use each benchmark's report module; a benchmark whose
module is missing, or one nobody registered, gets the generic section (a score table).

Plugins register their own::

    @register_section("mybench", title="My benchmark")
    def _mine(store, runs): return SectionParts(blocks=[...])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pydantic import BaseModel, Field

from incanon.report.model import Block, Chart, RunOverview
from incanon.runs import RunStore
from incanon.runs.records import SampleRecord


class SectionParts(BaseModel):
    """What a builder contributes to its section."""

    blocks: list[Block] = Field(default_factory=list)
    charts: list[Chart] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    data: dict = Field(default_factory=dict)


BuildFn = Callable[[RunStore, Sequence[RunOverview]], SectionParts]
SampleTypeFn = Callable[[SampleRecord], "str | None"]
"""A sample → the type the benchmark's tables group it by (``future``, ``two-hop``...)."""


@dataclass(frozen=True)
class SectionBuilder:
    """A registered builder."""

    family: str
    """Section key: runs of every benchmark name in ``benchmarks`` share one section."""
    title: str
    benchmarks: tuple[str, ...]
    build: BuildFn
    distributions: bool | tuple[str, ...] = True
    """Histograms of the runs' scores: True for the first few scores, the names of the scores to
    draw, or False (where scores are not per-sample judgements)."""
    sample_type: SampleTypeFn | None = None
    """How the benchmark's tables group samples (the web app's type filter); None: a generic
    guess from the sample's fields."""


_BY_BENCHMARK: dict[str, SectionBuilder] = {}


def register_section(family: str, *, title: str, benchmarks: Sequence[str] = (),
                     distributions: bool | Sequence[str] = True,
                     sample_type: SampleTypeFn | None = None) -> Callable[[BuildFn], BuildFn]:
    """Decorator: ``fn`` builds the section of runs whose benchmark is in ``benchmarks``
    (default: ``family`` itself)."""

    def wrap(fn: BuildFn) -> BuildFn:
        names = tuple(benchmarks) or (family,)
        chosen = distributions if isinstance(distributions, bool) else tuple(distributions)
        builder = SectionBuilder(family=family, title=title, benchmarks=names, build=fn, distributions=chosen,
                                 sample_type=sample_type)
        for name in names:
            _BY_BENCHMARK[name] = builder
        return fn

    return wrap


#: Modules of the built-in sections, imported by name on first use (a lazy table, as graphrag's
#: factories keep one): they import this module to register, so it must not import them.
BUILTIN_SECTIONS = tuple(f"incanon.report.sections.{name}"
                         for name in ("coser", "demo", "dialsim", "generic", "rolerag", "sharp", "timechara"))


def _load_builtins() -> None:
    # Importing the modules runs the built-in sections' decorators; their benchmark modules are
    # imported only when a section is built, so a missing benchmark breaks only its own section.
    import importlib

    for module in BUILTIN_SECTIONS:
        importlib.import_module(module)


def builder_for(benchmark: str) -> SectionBuilder | None:
    """The builder of ``benchmark`` runs (None: the generic section)."""
    _load_builtins()
    return _BY_BENCHMARK.get(benchmark)


def section_builders() -> dict[str, SectionBuilder]:
    """Benchmark name → builder, for every registered benchmark."""
    _load_builtins()
    return dict(_BY_BENCHMARK)
