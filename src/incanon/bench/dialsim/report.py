"""The DialSim report: the paper's Tables 3-4 (accuracy ± std over runs, model × memory, with
and without a time limit), accuracy per question type, and answer-time statistics.

Accuracy follows the paper: correct answers over questions asked, where a timeout is a failed
question and an ambiguous answer a wrong one. Errors and unjudged answers are counted and shown,
but left out of accuracy (they say nothing about the agent); the report warns when there are any.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, Field, computed_field

from incanon.bench.dialsim.outcomes import SCORED, latency_stats
from incanon.bench.dialsim.questions import CATEGORIES
from incanon.runs import RunStore


class Cell(BaseModel):
    n: int = 0
    correct: int = 0

    @computed_field  # type: ignore[prop-decorator]
    @property
    def accuracy(self) -> float | None:
        return self.correct / self.n if self.n else None


def tally(rows: Iterable[dict[str, Any]], key: str) -> dict[str, Cell]:
    """Accuracy cells by ``row[key]``; ``n`` counts the rows whose ``status`` counts in accuracy."""
    cells: dict[str, Cell] = defaultdict(Cell)
    for row in rows:
        cell = cells[str(row.get(key))]  # a group with only unjudged answers still shows, empty
        if row["status"] in SCORED:
            cell.n += 1
            cell.correct += row["status"] == "correct"
    return dict(cells)


class Setting(BaseModel):
    """One run: a model with a memory strategy under one time limit (and name variant)."""

    run_id: str
    model: str
    memory: str
    time_limit: float
    format: str
    names: str | None = None
    per_run: list[float | None] = Field(default_factory=list)
    """Accuracy of each repetition."""
    mean: float | None = None
    std: float | None = None
    """Sample standard deviation over repetitions (None with fewer than two)."""
    questions: int = 0
    statuses: dict[str, int] = Field(default_factory=dict)
    by_category: dict[str, Cell] = Field(default_factory=dict)
    by_type: dict[str, Cell] = Field(default_factory=dict)
    answer_time: dict[str, float] = Field(default_factory=dict)
    """count, mean, p50, p95, max of answer times (seconds)."""
    update_time: dict[str, float] = Field(default_factory=dict)
    """Memory updates over all sessions: count, mean and max (seconds)."""
    memory_timeouts: int = 0
    memory_errors: int = 0
    """Utterances the memory failed to take in (their errors are in the stored session records)."""

    def label(self) -> str:
        return f"{self.mean * 100:.2f} ({self.std * 100:.2f})" if self.mean is not None and self.std is not None \
            else (f"{self.mean * 100:.2f}" if self.mean is not None else "-")


def setting_from_rows(meta: dict[str, Any], sessions_by_epoch: dict[int, list[dict[str, Any]]]) -> Setting:
    """A setting from stored session records (``SessionRecord`` dicts) per repetition."""
    per_run: list[float | None] = []
    questions: list[dict[str, Any]] = []
    counts, means, peaks, timeouts, failures = [], [], [], 0, 0
    for epoch in sorted(sessions_by_epoch):
        records = sessions_by_epoch[epoch]
        qs = [r["question"] for r in records if r.get("question")]
        questions += qs
        scored = [q for q in qs if q["status"] in SCORED]
        per_run.append(sum(q["status"] == "correct" for q in scored) / len(scored) if scored else None)
        for r in records:
            if r.get("update", {}).get("count"):
                counts.append(r["update"]["count"])
                means.append(r["update"]["mean"])
                peaks.append(r["update"]["max"])
            timeouts += r.get("memory_timeouts", 0)
            failures += len(r.get("memory_errors", []))
    values = [v for v in per_run if v is not None]
    statuses: dict[str, int] = defaultdict(int)
    for q in questions:
        statuses[q["status"]] += 1
    return Setting(
        **meta, per_run=per_run, mean=statistics.fmean(values) if values else None,
        std=statistics.stdev(values) if len(values) > 1 else None, questions=len(questions), statuses=dict(statuses),
        by_category=tally(questions, "category"), by_type=tally(questions, "type"),
        answer_time=latency_stats([q["answer_s"] for q in questions if q.get("answer_s") is not None]),
        update_time={"count": sum(counts), "mean": sum(c * m for c, m in zip(counts, means)) / sum(counts),
                     "max": max(peaks)} if counts else {},
        memory_timeouts=timeouts, memory_errors=failures,
    )


def settings_from_runs(store: RunStore, run_ids: Iterable[str]) -> list[Setting]:
    """One setting per stored DialSim run."""
    settings = []
    for run_id in run_ids:
        info = store.get_run(run_id)
        params = info.config.params
        meta = {"run_id": run_id, "model": info.config.models.get("agent", "?"),
                "memory": (info.config.methods or ["?"])[0].removeprefix("dialsim-"),
                "time_limit": float(params.get("time_limit", 0)), "format": params.get("format", "mc"),
                "names": params.get("names")}
        by_epoch: dict[int, list[dict[str, Any]]] = defaultdict(list)
        for sample in store.samples(run_id):
            if sample.outputs is not None:
                by_epoch[sample.epoch].append(sample.outputs)
            elif sample.status == "error":
                by_epoch[sample.epoch].append({"question": {"status": "error"}})
        settings.append(setting_from_rows(meta, by_epoch))
    return settings


class DialsimReport(BaseModel):
    settings: list[Setting]

    def warnings(self) -> list[str]:
        out = []
        for s in self.settings:
            bad = {k: v for k, v in s.statuses.items() if k in ("error", "unjudged")}
            if bad:
                out.append(f"{s.run_id}: " + ", ".join(f"{v} {k}" for k, v in sorted(bad.items()))
                           + " (left out of accuracy; run the same command again to retry)")
            if s.memory_errors:
                out.append(f"{s.run_id}: the memory failed on {s.memory_errors} utterances (see the session records)")
        return out

    def markdown(self) -> str:
        lines: list[str] = []
        for limited, heading in ((True, "With a time limit"), (False, "Without a time limit")):
            group = [s for s in self.settings if (s.time_limit > 0) == limited]
            if not group:
                continue
            memories = list(dict.fromkeys(s.memory for s in group))
            lines += [f"## {heading} (accuracy %, std over runs in brackets)", "",
                      "| model | " + " | ".join(memories) + " |", "|---|" + "---|" * len(memories)]
            for model in dict.fromkeys((s.model, s.names, s.time_limit) for s in group):
                cells = {s.memory: s.label() for s in group if (s.model, s.names, s.time_limit) == model}
                name = model[0] + (f" ({model[1]} names)" if model[1] else "") + (f", {model[2]:g}s" if limited else "")
                lines.append(f"| {name} | " + " | ".join(cells.get(m, "-") for m in memories) + " |")
            lines.append("")
        lines += ["## By question type (accuracy %, questions)", "",
                  "| run | model | memory | " + " | ".join(CATEGORIES) + " |", "|---|---|---|" + "---|" * len(CATEGORIES)]
        for s in self.settings:
            row = [f"{c.accuracy * 100:.1f} ({c.n})" if (c := s.by_category.get(k)) and c.accuracy is not None else "-"
                   for k in CATEGORIES]
            lines.append(f"| {s.run_id} | {s.model} | {s.memory} | " + " | ".join(row) + " |")
        lines += ["", "## Answer time and memory updates (seconds)", "",
                  "| run | answers | answer mean | p50 | p95 | max | timeouts | updates | update mean | update max | memory timeouts | errors |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for s in self.settings:
            t, u = s.answer_time, s.update_time
            lines.append(f"| {s.run_id} | {int(t.get('count', 0))} | {_f(t.get('mean'))} | {_f(t.get('p50'))} "
                         f"| {_f(t.get('p95'))} | {_f(t.get('max'))} | {s.statuses.get('timeout', 0)} "
                         f"| {int(u.get('count', 0))} | {_f(u.get('mean'))} | {_f(u.get('max'))} | {s.memory_timeouts} "
                         f"| {s.statuses.get('error', 0)} |")
        warnings = self.warnings()
        if warnings:
            lines += ["", *[f"> warning: {w}" for w in warnings]]
        return "\n".join(lines) + "\n"


def _f(value: float | None) -> str:
    return "-" if value is None else (f"{value:.3f}" if value >= 0.001 else f"{value:.2e}")
