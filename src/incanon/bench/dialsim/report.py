"""The DialSim report: the paper's Tables 3-4 (accuracy ± std over runs, model × memory, with
and without a time limit), accuracy by question source (fan quiz, TKG) and type, the question
mix a run realised, and answer-time statistics in milliseconds.

Accuracy follows the reference: correct answers over every question asked (a timeout, an
ambiguous answer, an error or an unjudged answer is not correct). Beside it: the reference's
calibrated score, and the judged / failed / unjudged counts with the run's status, so a failure
is never read as a wrong answer.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, Field, computed_field

from incanon.bench.dialsim.outcomes import JUDGED, latency_stats
from incanon.bench.dialsim.questions import CATEGORIES
from incanon.report.doc import Doc
from incanon.runs import RunStore

SOURCES = ("fan", "tkg")


class Cell(BaseModel):
    n: int = 0
    correct: int = 0

    @computed_field  # type: ignore[prop-decorator]
    @property
    def accuracy(self) -> float | None:
        return self.correct / self.n if self.n else None


def tally(rows: Iterable[dict[str, Any]], key: str) -> dict[str, Cell]:
    """Accuracy cells by ``row[key]``: every row counts, ``correct`` those with status correct."""
    cells: dict[str, Cell] = defaultdict(Cell)
    for row in rows:
        cell = cells[str(row.get(key))]
        cell.n += 1
        cell.correct += row["status"] == "correct"
    return dict(cells)


def _source(q: dict[str, Any]) -> str:
    return "fan" if q.get("source") == "fan" or q.get("type", "") in _FAN_TYPES else "tkg"


_FAN_TYPES = frozenset({"ans_w_time", "ans_wo_time", "before_event_unans", "dont_know_unans", "dont_know_unans_time"})


class Setting(BaseModel):
    """One run: a model with a memory strategy under one time limit (and name variant)."""

    run_id: str
    model: str
    memory: str
    time_limit: float
    format: str
    names: str | None = None
    status: str = ""
    """The run's status in the store (finished, interrupted, stopped-budget, ...)."""
    per_run: list[float | None] = Field(default_factory=list)
    """Accuracy of each repetition."""
    mean: float | None = None
    std: float | None = None
    """Sample standard deviation over repetitions (None with fewer than two)."""
    calibrated: float | None = None
    """Mean of the repetitions' calibrated scores."""
    questions: int = 0
    statuses: dict[str, int] = Field(default_factory=dict)
    by_source: dict[str, Cell] = Field(default_factory=dict)
    by_category: dict[str, Cell] = Field(default_factory=dict)
    by_type: dict[str, Cell] = Field(default_factory=dict)
    answer_time: dict[str, float] = Field(default_factory=dict)
    """count, mean, p50, p95, max of whole question times (update + retrieval + answer; seconds)."""
    update_time: dict[str, float] = Field(default_factory=dict)
    """Memory updates over all sessions: count, mean and max (seconds)."""
    memory_timeouts: int = 0
    """Memory updates over the limit (each dropped from memory)."""
    memory_errors: int = 0
    """Utterances the memory failed to take in (their errors are in the stored session records)."""
    protocol: str = "incanon"
    dropped: dict[str, int] = Field(default_factory=dict)
    """Drawn questions passed over as the reference does (paper protocol), by reason, all repetitions."""

    def label(self) -> str:
        return f"{self.mean * 100:.2f} ({self.std * 100:.2f})" if self.mean is not None and self.std is not None \
            else (f"{self.mean * 100:.2f}" if self.mean is not None else "-")

    @property
    def limit_label(self) -> str:
        return "none" if self.time_limit == 0 else f"{self.time_limit:g}s"

    def counts(self) -> tuple[int, int, int]:
        """(judged, failed, unjudged) questions."""
        judged = sum(v for k, v in self.statuses.items() if k in JUDGED)
        return judged, self.statuses.get("error", 0), self.statuses.get("unjudged", 0)


def _question_time(q: dict[str, Any]) -> float | None:
    parts = [q.get("update_s"), q.get("retrieve_s"), q.get("answer_s")]
    return None if q.get("answer_s") is None else sum(p or 0.0 for p in parts)


def setting_from_rows(meta: dict[str, Any], sessions_by_epoch: dict[int, list[dict[str, Any]]]) -> Setting:
    """A setting from stored session records (``SessionRecord`` dicts) per repetition."""
    per_run: list[float | None] = []
    calibrated: list[float] = []
    questions: list[dict[str, Any]] = []
    counts, means, peaks, timeouts, failures = [], [], [], 0, 0
    dropped: dict[str, int] = {}
    for epoch in sorted(sessions_by_epoch):
        records = sessions_by_epoch[epoch]
        qs = [r["question"] for r in records if r.get("question")]
        questions += qs
        per_run.append(sum(q["status"] == "correct" for q in qs) / len(qs) if qs else None)
        if qs:
            calibrated.append(sum((q.get("calibrated") or q["status"]) == "correct" for q in qs) / len(qs))
        for r in records:
            if r.get("update", {}).get("count"):
                counts.append(r["update"]["count"])
                means.append(r["update"]["mean"])
                peaks.append(r["update"]["max"])
            timeouts += r.get("memory_timeouts", 0)
            failures += len(r.get("memory_errors", []))
            for reason, n in (r.get("dropped") or {}).items():
                dropped[reason] = dropped.get(reason, 0) + n
    values = [v for v in per_run if v is not None]
    statuses: dict[str, int] = defaultdict(int)
    for q in questions:
        statuses[q["status"]] += 1
    rows = [{**q, "source": _source(q)} for q in questions]
    return Setting(
        **meta, per_run=per_run, mean=statistics.fmean(values) if values else None,
        std=statistics.stdev(values) if len(values) > 1 else None,
        calibrated=statistics.fmean(calibrated) if calibrated else None, questions=len(questions),
        statuses=dict(statuses), by_source=tally(rows, "source"),
        by_category=tally([q for q in rows if q.get("category")], "category"),
        by_type=tally([q for q in rows if q.get("type")], "type"),
        answer_time=latency_stats([t for q in questions if (t := _question_time(q)) is not None]),
        update_time={"count": sum(counts), "mean": sum(c * m for c, m in zip(counts, means)) / sum(counts),
                     "max": max(peaks)} if counts else {},
        memory_timeouts=timeouts, memory_errors=failures, dropped=dropped,
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
                "names": params.get("names"), "status": str(getattr(info, "status", "") or ""),
                "protocol": str(params.get("paper_protocol") and "paper" or "incanon")}
        by_epoch: dict[int, list[dict[str, Any]]] = defaultdict(list)
        for sample in store.samples(run_id):
            if sample.outputs is not None:
                by_epoch[sample.epoch].append(sample.outputs)
            elif sample.status == "error":
                by_epoch[sample.epoch].append({"question": {"status": "error"}})
        settings.append(setting_from_rows(meta, by_epoch))
    return settings


def dropped_line(dropped: dict[str, int]) -> str:
    """"3 drawn questions passed over as the reference does (2 no wording ..., 1 ...)"."""
    total = sum(dropped.values())
    parts = ", ".join(f"{n} {reason}" for reason, n in sorted(dropped.items()))
    return f"{total} drawn question{'s' if total != 1 else ''} passed over as the reference does ({parts})"


def _pct(cell: Cell | None) -> str:
    return f"{cell.accuracy * 100:.1f} ({cell.n})" if cell is not None and cell.accuracy is not None else "-"


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value * 1000:.1f}"


class DialsimReport(BaseModel):
    settings: list[Setting]

    def warnings(self) -> list[str]:
        out = []
        for s in self.settings:
            bad = {k: v for k, v in s.statuses.items() if k in ("error", "unjudged")}
            if bad:
                out.append(f"{s.run_id}: " + ", ".join(f"{v} {k}" for k, v in sorted(bad.items()))
                           + " (not correct in the accuracy, as in the reference; run the same command again to retry)")
            if s.memory_errors:
                out.append(f"{s.run_id}: the memory failed on {s.memory_errors} utterances (see the session records)")
        return out

    def drop_notes(self) -> list[str]:
        """One line per run that passed drawn questions over as the reference does."""
        return [f"{s.run_id}: {dropped_line(s.dropped)}" for s in self.settings if s.dropped]

    def doc(self) -> Doc:
        """Tables 3-4 (with and without a time limit), the runs, the question mix and timings."""
        doc = Doc()
        for limited, heading in ((True, "With a time limit"), (False, "Without a time limit")):
            group = [s for s in self.settings if (s.time_limit > 0) == limited]
            if not group:
                continue
            memories = list(dict.fromkeys(s.memory for s in group))
            rows = []
            for model in dict.fromkeys((s.model, s.names, s.time_limit) for s in group):
                cells = {s.memory: s.label() for s in group if (s.model, s.names, s.time_limit) == model}
                name = model[0] + (f" ({model[1]} names)" if model[1] else "") + (f", {model[2]:g}s" if limited else "")
                rows.append([name, *(cells.get(m, "-") for m in memories)])
            doc.heading(f"{heading} (accuracy %, std over runs in brackets)", 2)
            doc.table(["model", *memories], rows)
        doc.heading("Runs (accuracy: correct over all questions; judged / failed / unjudged questions)", 2)
        rows = []
        for s in self.settings:
            judged, failed, unjudged = s.counts()
            cal = "-" if s.calibrated is None else f"{s.calibrated * 100:.2f}"
            rows.append([s.run_id, s.model, s.memory, s.limit_label, s.status or "-", s.label(), cal, judged, failed,
                         unjudged, s.statuses.get("timeout", 0)])
        doc.table(["run", "model", "memory", "time limit", "status", "accuracy %", "calibrated %", "judged", "failed",
                   "unjudged", "timeouts"], rows)
        doc.heading("By question source and type (accuracy %, questions)", 2)
        doc.table(["run", "memory", "time limit", "fan quiz (all)", "TKG (all)", *CATEGORIES],
                  [[s.run_id, s.memory, s.limit_label, *(_pct(s.by_source.get(k)) for k in SOURCES),
                    *(_pct(s.by_category.get(k)) for k in CATEGORIES)] for s in self.settings])
        doc.heading("Question mix asked (share of questions, by type)", 2)
        rows = []
        for s in self.settings:
            n = s.questions or 1
            fan = s.by_source.get("fan", Cell()).n
            unans = s.by_category.get("unanswerable", Cell()).n
            types = ", ".join(f"{t} {c.n}" for t, c in sorted(s.by_type.items(), key=lambda kv: (-kv[1].n, kv[0])))
            rows.append([s.run_id, s.memory, s.limit_label, s.questions, f"{fan / n * 100:.1f}", f"{unans / n * 100:.1f}",
                         types or "-"])
        doc.table(["run", "memory", "time limit", "questions", "fan %", "unanswerable %", "types"], rows)
        doc.heading("Question time (update + retrieval + answer) and memory updates (milliseconds)", 2)
        rows = []
        for s in self.settings:
            t, u = s.answer_time, s.update_time
            rows.append([s.run_id, s.memory, s.limit_label, int(t.get("count", 0)), _ms(t.get("mean")), _ms(t.get("p50")),
                         _ms(t.get("p95")), _ms(t.get("max")), s.statuses.get("timeout", 0), int(u.get("count", 0)),
                         _ms(u.get("mean")), _ms(u.get("max")), s.memory_timeouts, s.statuses.get("error", 0)])
        doc.table(["run", "memory", "time limit", "answers", "mean", "p50", "p95", "max", "timeouts", "updates",
                   "update mean", "update max", "updates dropped", "errors"], rows)
        for note in self.drop_notes():
            doc.note(note)
        for warning in self.warnings():
            doc.note(f"warning: {warning}")
        return doc

    def markdown(self) -> str:
        return self.doc().markdown()
