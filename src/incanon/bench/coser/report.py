"""The GCA report in the paper's Table 2 layout, overall and in-domain / out-of-domain (Table 13).

Columns: Storyline Consistency, Anthropomorphism, Character Fidelity, Storyline Quality, their
average, BLEU and ROUGE-L, one row per evaluated model (setting). Rows come from runs in the run
store (a judged run, or a simulation run with the judged runs made of it) or from a rescored
evaluation file; no model is called.

A run with several epochs (``--epochs``: the paper averages three runs) reports, per column, the
mean over epochs of the epoch's mean, ± the sample standard deviation (n − 1) over epochs.
"""

from __future__ import annotations

from statistics import fmean, stdev
from typing import Any, Iterable, Mapping

from pydantic import BaseModel, Field

from incanon.bench.coser.scoring import DIMENSIONS, Aggregate, aggregate
from incanon.bench.coser.simulation.runs import JUDGE_BENCHMARK, SIMULATION_BENCHMARK
from incanon.errors import InputError
from incanon.report.doc import Doc
from incanon.runs import RunStore

SPLITS = ("all", "in-domain", "out-of-domain")
COLUMNS = (*DIMENSIONS, "Average", "BLEU", "ROUGE-L")


class CaseScores(BaseModel):
    """One case's scores: the four dimensions, ``bleu`` and ``rouge_l`` (0-100)."""

    case_id: str
    domain: str | None = None
    scores: dict[str, float | None] = Field(default_factory=dict)
    epoch: int = 0


class ModelRow(BaseModel):
    """One model (setting) of the table, with its aggregates per split."""

    label: str
    run_id: str | None = None
    source_run: str | None = None
    critic: str | None = None
    splits: dict[str, Aggregate] = Field(default_factory=dict)
    """``all``, and ``in-domain`` / ``out-of-domain`` when cases carry a domain."""
    status: str | None = None
    """The run's status (``complete``, ``partial``, ``interrupted``...), or None for a file."""
    failed: int = 0
    """Cases whose simulation or critique failed (not in the means)."""
    epochs: int = 1
    """Repetitions the row averages."""
    spread: dict[str, dict[str, float | None]] = Field(default_factory=dict)
    """Split → column → standard deviation over epochs (only with more than one epoch)."""

    @property
    def counts(self) -> str:
        """``judged / failed / unjudged`` and the status, as shown next to the table."""
        agg = self.splits.get("all") or Aggregate()
        text = f"{agg.judged} judged, {self.failed} failed, {agg.cases - agg.judged} unjudged"
        return f"{text} ({self.status})" if self.status else text


def _values(agg: Aggregate) -> list[float | None]:
    return [*(agg.dimensions.get(d) for d in DIMENSIONS), agg.average, agg.bleu, agg.rouge_l]


def _over_epochs(per_epoch: list[Aggregate]) -> tuple[Aggregate, dict[str, float | None]]:
    # Each column: mean and sample standard deviation of the epochs' means that exist.
    means: list[float | None] = []
    spread: dict[str, float | None] = {}
    for column, values in zip(COLUMNS, zip(*(_values(a) for a in per_epoch))):
        present = [v for v in values if v is not None]
        means.append(fmean(present) if present else None)
        spread[column] = stdev(present) if len(present) > 1 else None
    dims = dict(zip(DIMENSIONS, means[: len(DIMENSIONS)]))
    agg = Aggregate(cases=sum(a.cases for a in per_epoch), judged=sum(a.judged for a in per_epoch), dimensions=dims,
                    average=means[len(DIMENSIONS)], bleu=means[-2], rouge_l=means[-1])
    return agg, spread


def _split(rows: list[CaseScores], epochs: list[int]) -> tuple[Aggregate, dict[str, float | None]]:
    if len(epochs) == 1:
        return aggregate([c.scores for c in rows]), {}
    return _over_epochs([aggregate([c.scores for c in rows if c.epoch == e]) for e in epochs])


def model_row(label: str, cases: Iterable[CaseScores], **info: Any) -> ModelRow:
    """Aggregate ``cases`` overall and per domain (per epoch first, when there are several)."""
    rows = list(cases)
    epochs = sorted({c.epoch for c in rows}) or [0]
    splits: dict[str, Aggregate] = {}
    spread: dict[str, dict[str, float | None]] = {}
    splits["all"], spread["all"] = _split(rows, epochs)
    for split in SPLITS[1:]:
        part = [c for c in rows if c.domain == split]
        if part:
            splits[split], spread[split] = _split(part, epochs)
    return ModelRow(label=label, splits=splits, epochs=len(epochs),
                    spread={k: v for k, v in spread.items() if v}, **info)


def _fmt(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def _cells(agg: Aggregate, spread: Mapping[str, float | None] | None = None) -> list[str]:
    cells = [_fmt(v) for v in _values(agg)]
    if spread:
        cells = [c if spread.get(col) is None else f"{c} ± {spread[col]:.2f}" for c, col in zip(cells, COLUMNS)]
    return cells


class GcaReport(BaseModel):
    """Table 2 (and Table 13) of a set of runs or of a rescored file."""

    rows: list[ModelRow] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    length_correction: bool = Field(default=True, exclude=True)
    """False when the dimension scores were computed without the length correction (a rescore
    with ``--no-length-penalty``): the heading then says so (a note says it in the JSON)."""

    def table(self, split: str = "all") -> list[dict[str, Any]]:
        """Rows of one split as plain dicts (column → value)."""
        out = []
        for row in self.rows:
            agg = row.splits.get(split)
            if agg is None:
                continue
            out.append({"model": row.label, **dict(zip(COLUMNS, _values(agg))), "cases": agg.cases, "judged": agg.judged,
                        "failed": row.failed, "unjudged": agg.cases - agg.judged, "status": row.status,
                        "epochs": row.epochs, "std": row.spread.get(split)})
        return out

    def doc(self) -> Doc:
        """Table 2: one table per split (all, in-domain, out-of-domain), then the notes."""
        titles = {"all": "All cases", "in-domain": "In-domain", "out-of-domain": "Out-of-domain"}
        doc = Doc("Given-circumstance acting (CoSER Table 2 layout)", 1)
        scoring = "with length correction" if self.length_correction else "without the length correction"
        doc.text(f"LLM-judged scores (0-100, penalty-based {scoring}) and n-gram overlap with "
                 "the original conversation (0-100).")
        for split in SPLITS:
            rows = [r for r in self.rows if split in r.splits]
            if not rows or (split != "all" and not any(r.splits[split].cases for r in rows)):
                continue
            table = []
            for row in rows:
                agg = row.splits[split]
                counts = row.counts if split == "all" else f"{agg.judged} judged, {agg.cases - agg.judged} unjudged"
                label = row.label + (f" ({row.epochs} epochs)" if row.epochs > 1 else "")
                table.append([label, *_cells(agg, row.spread.get(split)), counts])
            doc.heading(titles[split], 2)
            doc.table(["Model", *COLUMNS, "Judged / failed / unjudged (status)"], table,
                      right=range(1, len(COLUMNS) + 2))
        if self.notes:
            doc.items(self.notes)
        return doc

    def markdown(self) -> str:
        return self.doc().markdown()


def run_label(models: Mapping[str, str], params: Mapping[str, Any]) -> str:
    """How a run is named in the table: the actor spec, then ``rag=...``, ``k=...`` and
    ``prompts=...`` if set."""
    label = models.get("actor", "?")
    rag = params.get("rag")
    k = params.get("continue_from")
    if k is None:
        k = ((params.get("simulation") or {}).get("continue_from"))
    pset = params.get("prompt_set") or (params.get("simulation") or {}).get("prompt_set")
    extras = [f"rag={rag}" if rag else "", f"k={k}" if k else "", f"prompts={pset}" if pset else ""]
    return " ".join([label, *[e for e in extras if e]])


def _cases(store: RunStore, run_id: str) -> list[CaseScores]:
    return [CaseScores(case_id=s.item_id, domain=s.input.get("domain"), scores=dict(s.scores or {}), epoch=s.epoch)
            for s in store.samples(run_id, status="ok")]


def report_from_runs(store: RunStore, run_ids: Iterable[str]) -> GcaReport:
    """One row per judged run; a simulation run stands for the judged runs made of it (or, with
    none yet, for a row of BLEU / ROUGE-L only)."""
    report = GcaReport()
    runs = store.runs()
    for ref in run_ids:
        run_id = store.resolve(ref)
        info = store.get_run(run_id)
        if info.benchmark == JUDGE_BENCHMARK:
            judged = [info]
        elif info.benchmark == SIMULATION_BENCHMARK:
            judged = [r for r in runs if r.benchmark == JUDGE_BENCHMARK
                      and r.config.dataset.get("source_run") == run_id]
            if not judged:
                report.rows.append(model_row(run_label(info.config.models, info.config.params), _cases(store, run_id),
                                             run_id=run_id, source_run=run_id, status=info.status,
                                             failed=info.failed))
                report.notes.append(f"{run_id} has not been judged yet: BLEU and ROUGE-L only "
                                    f"(judge it with: incanon coser judge {run_id} --critic SPEC)")
                continue
        else:
            raise InputError(f"run {run_id} is a {info.benchmark} run, not a CoSER simulation or judged run")
        for run in sorted(judged, key=lambda r: r.created):
            label = run_label(run.config.models, run.config.params)
            if len(judged) > 1:
                label += f" (critic {run.config.models.get('critic', '?')})"
            row = model_row(label, _cases(store, run.id), run_id=run.id,
                            source_run=run.config.dataset.get("source_run"), critic=run.config.models.get("critic"),
                            status=run.status, failed=run.failed)
            report.rows.append(row)
            missing = row.splits["all"].cases - row.splits["all"].judged
            if missing:
                report.notes.append(f"{run.id}: {missing} case(s) lack a readable critique on some dimension; "
                                    "dimension means use the cases that have one")
    return report
