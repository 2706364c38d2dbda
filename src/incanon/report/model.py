"""The report as data: sections of blocks (headings, text, tables), charts, and the runs behind
them. Renderers (HTML, markdown) and the web app read these; nothing here draws or formats."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from incanon import __version__
from incanon.models.types import Usage


class Table(BaseModel):
    """A table of text cells (numbers already formatted, ``mean ± SEM`` where it applies)."""

    columns: list[str]
    rows: list[list[str]] = Field(default_factory=list)
    caption: str = ""
    right: list[int] = Field(default_factory=list)
    """Columns set flush right (markdown ``---:``): numbers a paper's table aligns."""


class Block(BaseModel):
    """One piece of a section, in reading order."""

    kind: Literal["heading", "text", "list", "note", "table"]
    text: str = ""
    """Heading or paragraph text (``heading``, ``text``, ``note``)."""
    level: int = 3
    """Heading level (the section title is level 2)."""
    items: list[str] = Field(default_factory=list)
    """List items (``list``)."""
    table: Table | None = None


class Series(BaseModel):
    """One series of a chart: a value per category (bars) or raw values (histogram)."""

    name: str
    values: list[float | None]
    errors: list[float | None] | None = None
    """Error-bar half-widths per value (SEM or std, as the chart's ``error`` says)."""


class Chart(BaseModel):
    """A chart as data; ``incanon.report.plots`` draws it, the web app may draw it its own way."""

    kind: Literal["bars", "histogram"]
    title: str
    categories: list[str] = Field(default_factory=list)
    """X-axis categories (bars)."""
    series: list[Series] = Field(default_factory=list)
    x_label: str = ""
    y_label: str = ""
    error: str = ""
    """What the error bars are (``SEM``, ``std over runs``); empty for none."""
    bins: list[float] | None = None
    """Histogram bin edges (None: chosen from the data)."""
    y_range: tuple[float, float] | None = None


class RunOverview(BaseModel):
    """A run's configuration, progress, usage and score summary."""

    id: str
    benchmark: str
    status: str
    created: datetime
    name: str | None = None
    task: str = ""
    models: dict[str, str] = Field(default_factory=dict)
    methods: list[str] = Field(default_factory=list)
    seeds: list[int] = Field(default_factory=list)
    version: str = ""
    """The incanon version that created the run."""
    templates: dict[str, str] = Field(default_factory=dict)
    """Prompt template → fingerprint."""
    dataset: dict[str, Any] = Field(default_factory=dict)
    params: dict[str, Any] = Field(default_factory=dict)
    ok: int = 0
    failed: int = 0
    total: int | None = None
    usage: Usage = Field(default_factory=Usage)
    errors: dict[str, int] = Field(default_factory=dict)
    scores: dict[str, dict[str, float | int | None]] = Field(default_factory=dict)
    """Score name → ``{n, mean, sem, missing}`` over the run's ok samples."""

    @property
    def label(self) -> str:
        """``model / method`` as tables and charts name the run."""
        model = self.models.get("agent") or self.models.get("actor") or next(iter(self.models.values()), "?")
        return f"{model} / {', '.join(self.methods) or '-'}"


class Section(BaseModel):
    """One benchmark's part of a report."""

    benchmark: str
    """The report family (``timechara``, ``coser``...), or the run's benchmark for unknown ones."""
    title: str
    runs: list[RunOverview] = Field(default_factory=list)
    blocks: list[Block] = Field(default_factory=list)
    """The paper-style tables and their notes."""
    charts: list[Chart] = Field(default_factory=list)
    scores: Table | None = None
    """Every score of every run, mean ± SEM."""
    configuration: list[Block] = Field(default_factory=list)
    """Models, methods, seeds, versions, template fingerprints of the runs."""
    costs: Table | None = None
    """Calls, tokens, time and cost per run."""
    notes: list[str] = Field(default_factory=list)
    """Things the reader should know (a report module missing, runs left out, warnings)."""
    data: dict[str, Any] = Field(default_factory=dict)
    """The benchmark's own report object (JSON), for programs."""

    @property
    def usage(self) -> Usage:
        """Usage summed over the section's runs."""
        total = Usage()
        for run in self.runs:
            total = total + run.usage
        return total


class Report(BaseModel):
    """A report over one or more runs, one section per benchmark."""

    title: str
    created: datetime
    version: str = __version__
    """The incanon version that made the report."""
    run_store: str = ""
    sections: list[Section] = Field(default_factory=list)

    @property
    def usage(self) -> Usage:
        """Usage summed over every run."""
        total = Usage()
        for section in self.sections:
            total = total + section.usage
        return total

    def to_json(self) -> dict[str, Any]:
        """The report as plain JSON data (charts as data, not pictures)."""
        doc = self.model_dump(mode="json")
        doc["usage"] = self.usage.model_dump(mode="json")
        for section, data in zip(self.sections, doc["sections"]):
            data["usage"] = section.usage.model_dump(mode="json")
        return doc
