"""The RoleRAG report: the paper's Table 1 (KE↑, KH↓, UQJ↑ per model × method) and the
general vs specific split of Tables 2-3 (KE, KH), plus UQJ on in- and out-of-scope questions.
Means are over questions; ± is the standard error of the mean. Unscored items (a judge gave no
rating even after repair) are counted, never averaged in."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel

from incanon.report.doc import Doc
from incanon.runs import RunStore

METHOD_ORDER = ("vanilla", "rag-chunks", "profile", "rolerag", "rolerag-cutoff")
METRICS = ("ke", "kh", "uqj")
HEAD = {"ke": "KE↑", "kh": "KH↓", "uqj": "UQJ↑"}


class Cell(BaseModel):
    n: int = 0
    mean: float | None = None
    sem: float | None = None
    missing: int = 0

    def text(self) -> str:
        if self.mean is None:
            return "-"
        return f"{self.mean:.3f}" + (f" ± {self.sem:.3f}" if self.sem is not None else "")


def cell(values: Sequence[float | None]) -> Cell:
    got = [float(v) for v in values if v is not None]
    if not got:
        return Cell(missing=len(values))
    mean = sum(got) / len(got)
    sem = math.sqrt(sum((v - mean) ** 2 for v in got) / (len(got) - 1) / len(got)) if len(got) > 1 else None
    return Cell(n=len(got), mean=mean, sem=sem, missing=len(values) - len(got))


class Row(BaseModel):
    model: str
    method: str
    group: str | None = None
    items: int
    cells: dict[str, Cell]


class RunCounts(BaseModel):
    """What became of one run's questions."""

    model: str
    method: str
    status: str = ""
    """The run's status in the run store (finished, partial, failed, running...)."""
    judged: int = 0
    """Answered and rated by all three judges."""
    unjudged: int = 0
    """Answered, but at least one judge gave no rating."""
    failed: int = 0
    """No answer (the sample failed)."""


class RoleRAGReport(BaseModel):
    rows: list[Row]
    by_kind: list[Row]
    by_scope: list[Row]
    errors: int = 0
    runs: list[RunCounts] = []

    @property
    def judged(self) -> int:
        return sum(r.judged for r in self.runs)

    def doc(self) -> Doc:
        """Table 1 with the run status, then the general/specific and in/out-of-scope splits."""
        doc = Doc("RoleRAG (Table 1)")
        doc.table(["Model", "Method", "n", "KE↑", "KH↓", "UQJ↑"],
                  [[r.model, r.method, r.items, *(r.cells[m].text() for m in METRICS)] for r in self.rows])
        doc.table(["Model", "Method", "run", "judged", "unjudged", "failed"],
                  [[c.model, c.method, c.status, c.judged, c.unjudged, c.failed] for c in self.runs])
        doc.heading("General vs specific questions (KE, KH)")
        doc.table(["Model", "Method", "Questions", "n", "KE↑", "KH↓"],
                  [[r.model, r.method, r.group, r.items, r.cells["ke"].text(), r.cells["kh"].text()] for r in self.by_kind])
        doc.heading("In-scope vs out-of-scope questions (UQJ)")
        doc.table(["Model", "Method", "Scope", "n", "UQJ↑"],
                  [[r.model, r.method, r.group, r.items, r.cells["uqj"].text()] for r in self.by_scope])
        missing = sum(c.missing for r in self.rows for c in r.cells.values())
        notes = []
        if missing:
            notes.append(f"{missing} judge verdicts gave no rating and are left out of the means.")
        if self.errors:
            notes.append(f"{self.errors} questions failed (no answer) and are left out.")
        if notes:
            doc.text("\n".join(notes))
        return doc

    def markdown(self) -> str:
        return self.doc().markdown()


def _order(method: str) -> tuple[int, str]:
    return (METHOD_ORDER.index(method) if method in METHOD_ORDER else len(METHOD_ORDER), method)


def build_report(rows: Iterable[dict[str, Any]]) -> RoleRAGReport:
    """``rows``: dicts with model, method, kind, scope, status and the ke/kh/uqj scores."""
    data = list(rows)
    ok = [r for r in data if r.get("status", "ok") == "ok"]

    def table(key: str | None) -> list[Row]:
        groups: dict[tuple[str, str, str | None], list[dict[str, Any]]] = {}
        for r in ok:
            groups.setdefault((r["model"], r["method"], r.get(key) if key else None), []).append(r)
        out = [Row(model=m, method=meth, group=g, items=len(rs),
                   cells={k: cell([x.get(k) for x in rs]) for k in METRICS})
               for (m, meth, g), rs in groups.items()]
        return sorted(out, key=lambda r: (r.model, _order(r.method), r.group or ""))

    counts: dict[tuple[str, str], RunCounts] = {}
    for r in data:
        c = counts.setdefault((r["model"], r["method"]), RunCounts(model=r["model"], method=r["method"],
                                                                  status=r.get("run_status", "")))
        if r.get("status", "ok") != "ok":
            c.failed += 1
        elif all(r.get(k) is not None for k in METRICS):
            c.judged += 1
        else:
            c.unjudged += 1
    return RoleRAGReport(rows=table(None), by_kind=table("kind"), by_scope=table("scope"),
                         errors=len(data) - len(ok), runs=sorted(counts.values(), key=lambda c: (c.model, _order(c.method))))


def rows_from_runs(runs: RunStore, run_ids: Sequence[str]) -> list[dict[str, Any]]:
    """Report rows of stored RoleRAG runs."""
    out = []
    for run_id in run_ids:
        info = runs.get_run(run_id)
        model = info.config.models.get("agent", "?")
        method = info.config.methods[0] if info.config.methods else "?"
        for s in runs.samples(run_id):
            scores = s.scores or {}
            out.append({"model": model, "method": method, "kind": s.input.get("kind", "specific"),
                        "scope": s.input.get("scope", "in"), "status": s.status, "run_status": str(info.status),
                        **{k: scores.get(k) for k in METRICS}})
    return out
