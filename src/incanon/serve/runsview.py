"""The run store as the web app browses it: run overviews with filters, reports in the papers'
layouts with their charts drawn, and samples (``SampleIndex``).

Overviews and reports are kept until their runs change, so a finished run is summarized once
and a run still being written shows its progress on the next request.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from incanon.report import build_report, png_data_uri
from incanon.report.model import Chart, RunOverview
from incanon.report.overview import run_overview
from incanon.runs import RunStore
from incanon.serve.samples import SampleIndex, SampleQuery, sample_detail


def _stamp(store: RunStore, run_id: str) -> tuple[Any, ...]:
    info = store.get_run(run_id)
    return (info.updated, info.ok, info.failed, info.status)


def overview_json(run: RunOverview) -> dict[str, Any]:
    """A run overview as the run list shows it (with its ``model / method`` label)."""
    doc = run.model_dump(mode="json")
    doc["label"] = run.label
    return doc


def matches(run: RunOverview, *, benchmark: str | None = None, model: str | None = None,
            method: str | None = None) -> bool:
    """True when ``run`` is of ``benchmark`` and used ``model`` (any role) and ``method``."""
    if benchmark and run.benchmark != benchmark:
        return False
    if model and model not in run.models.values():
        return False
    return not (method and method not in run.methods)


class RunsView:
    """Read-only views of one run store (see the module docstring)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._store: RunStore | None = None
        self._lock = threading.Lock()
        self._overviews: dict[str, tuple[tuple[Any, ...], RunOverview]] = {}
        self._reports: dict[tuple[str, ...], tuple[tuple[Any, ...], dict[str, Any]]] = {}
        self._samples: SampleIndex | None = None

    @property
    def store(self) -> RunStore:
        """The run store (opened on first use; an app without runs still starts)."""
        with self._lock:
            if self._store is None:
                self._store = RunStore(self.path)
                self._samples = SampleIndex(self._store)
            return self._store

    def close(self) -> None:
        """Close the run store."""
        with self._lock:
            if self._store is not None:
                self._store.close()
                self._store = None

    def overview(self, run_id: str) -> RunOverview:
        """The overview of ``run_id`` (an id or unique prefix)."""
        store = self.store
        run_id = store.resolve(run_id)
        stamp = _stamp(store, run_id)
        cached = self._overviews.get(run_id)
        if cached is None or cached[0] != stamp:
            cached = (stamp, run_overview(store, run_id))
            self._overviews[run_id] = cached
        return cached[1]

    def runs(self, **filters: str | None) -> dict[str, Any]:
        """Every run passing ``filters`` (benchmark, model, method), newest first, with the
        values each filter can take over all runs."""
        overviews = [self.overview(info.id) for info in self.store.runs()]
        facets = {
            "benchmark": sorted({r.benchmark for r in overviews}),
            "model": sorted({m for r in overviews for m in r.models.values()}),
            "method": sorted({m for r in overviews for m in r.methods}),
        }
        shown = [overview_json(r) for r in overviews if matches(r, **filters)]
        return {"runs": shown, "total": len(overviews), "facets": facets, "store": str(self.path)}

    def report(self, refs: list[str]) -> dict[str, Any]:
        """The report of ``refs`` as JSON, each chart with its PNG (``image``, a data URI)."""
        store = self.store
        ids = tuple(dict.fromkeys(store.resolve(ref) for ref in refs))
        stamp = tuple(_stamp(store, run_id) for run_id in ids)
        cached = self._reports.get(ids)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        report = build_report(store, list(ids))
        doc = report.to_json()
        for section, data in zip(report.sections, doc["sections"]):
            for chart, chart_data in zip(section.charts, data["charts"]):
                chart_data["image"] = png_data_uri(Chart.model_validate(chart))
        self._reports[ids] = (stamp, doc)
        return doc

    def samples(self, run_id: str, query: SampleQuery) -> dict[str, Any]:
        """A page of ``run_id``'s sample list under ``query``."""
        run_id = self.store.resolve(run_id)
        assert self._samples is not None
        return self._samples.page(run_id, query)

    def sample(self, run_id: str, item_id: str, epoch: int = 0) -> dict[str, Any]:
        """One sample, whole, for the drill-down."""
        store = self.store
        run_id = store.resolve(run_id)
        return sample_detail(store.sample(run_id, item_id, epoch), store.get_run(run_id).benchmark)
