"""Recompute every score from a file of simulations with critiques, without calling a model.

Reads CoSER's evaluation files as its evaluator writes them::

    {"scores": {...}, "cases": {"<book>-<i_p>-<i_c>": {"simulation": [{"role", "content"}],
                                                       "critique": {"<Dimension>": {"flaws": [...]},
                                                                    "bleu": 0.05, "rouge_l": 0.12},
                                                       "score": ...}}}

the multi-model variant of its released files (``"cases": {"<model>": {"<case id>": {...}}}``,
where cases without a critique, such as the ground truth, are skipped), and the files
``incanon coser judge --out`` writes (the same layout plus an ``incanon`` block). Dimension
scores are recomputed from the flaws and the simulation's actor rounds; the stored scores are
compared with them and disagreements counted. BLEU / ROUGE-L are recomputed when the test set
is given (the files hold no reference dialogue), otherwise the stored values (fractions in
CoSER's files) are carried over as percentages.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator, Mapping

from pydantic import BaseModel, Field

from incanon.bench.coser.formats import TestSample
from incanon.bench.coser.files import load_test_set, read_json
from incanon.bench.coser.metrics import ngram_scores
from incanon.bench.coser.report import CaseScores, GcaReport, model_row, run_label
from incanon.bench.coser.scoring import (
    DIMENSIONS, actor_rounds, aggregate, canonical_dimension, case_score, coerce_flaws, dimension_score,
)
from incanon.bench.coser.simulation.case import case_domain, case_id, to_domain
from incanon.errors import InputError
from incanon.runs import RunStore

TOLERANCE = 0.01
"""Stored and recomputed scores closer than this agree."""


class RescoredCase(BaseModel):
    """One case as recomputed, next to what the file stored."""

    model: str
    case_id: str
    domain: str | None = None
    actor_rounds: int
    scores: dict[str, float | None] = Field(default_factory=dict)
    """The four dimensions, ``bleu`` and ``rouge_l``."""
    score: float | None = None
    stored: dict[str, float | None] = Field(default_factory=dict)
    """Scores the file held (dimensions and ``score``)."""
    disagreements: list[str] = Field(default_factory=list)
    """Keys whose stored score differs from the recomputed one."""
    ngram_source: str = "stored"
    """``recomputed`` (from the test set) or ``stored``."""


class RescoreResult(BaseModel):
    """Everything rescoring found."""

    source: str
    layout: str
    """``coser`` (one model), ``coser-multi`` (cases grouped by model) or ``incanon``."""
    cases: list[RescoredCase] = Field(default_factory=list)
    skipped: dict[str, int] = Field(default_factory=dict)
    """Why cases were left out → how many."""
    disagreeing_cases: int = 0
    stored_scores: dict[str, Any] = Field(default_factory=dict)
    """The file's own ``scores`` block."""
    report: GcaReport = Field(default_factory=GcaReport)


def _is_case(value: Any) -> bool:
    return isinstance(value, Mapping) and ("simulation" in value or "critique" in value)


def iter_cases(data: Any, default_model: str) -> tuple[str, Iterator[tuple[str, str, Mapping[str, Any]]]]:
    """(layout, iterator of (model, case id, case)) of an evaluation file's content."""
    if not isinstance(data, Mapping) or not isinstance(data.get("cases"), Mapping):
        raise InputError("expected a JSON object with 'cases' (a CoSER evaluation file)", where="cases")
    cases = data["cases"]
    grouped = cases and not any(_is_case(v) for v in cases.values()) and all(
        isinstance(v, Mapping) for v in cases.values())
    info = data.get("incanon") if isinstance(data.get("incanon"), Mapping) else {}
    model = str(info.get("model") or default_model)

    def rows() -> Iterator[tuple[str, str, Mapping[str, Any]]]:
        if grouped:
            for group, entries in cases.items():
                for cid, case in entries.items():
                    yield str(group), str(cid), case
        else:
            for cid, case in cases.items():
                yield model, str(cid), case

    return ("incanon" if info else "coser-multi" if grouped else "coser"), rows()


def _stored_ngram(critique: Mapping[str, Any], key: str, scale: float) -> float | None:
    value = critique.get(key)
    return float(value) * scale if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def rescore_case(model: str, cid: str, case: Mapping[str, Any], *, sample: TestSample | None,
                 continue_from: int, scale: float = 100.0) -> RescoredCase:
    """Recompute one case's scores from its flaws and simulation; stored BLEU / ROUGE-L are
    multiplied by ``scale`` (CoSER's files and incanon's exports both store fractions)."""
    simulation = [m for m in case.get("simulation") or [] if isinstance(m, Mapping)]
    rounds = actor_rounds(simulation)
    critique = case.get("critique") or {}
    by_dim = {canonical_dimension(str(k)): v for k, v in critique.items() if canonical_dimension(str(k))}
    scores: dict[str, float | None] = {}
    stored: dict[str, float | None] = {}
    for dimension in DIMENSIONS:
        entry = by_dim.get(dimension)
        if not isinstance(entry, Mapping) or "flaws" not in entry:
            scores[dimension] = None
            continue
        flaws = coerce_flaws(entry.get("flaws") or [])
        scores[dimension] = dimension_score((f.severity for f in flaws), rounds)
        if isinstance(entry.get("score"), (int, float)):
            stored[dimension] = float(entry["score"])
    if isinstance(case.get("score"), (int, float)):
        stored["score"] = float(case["score"])
    source = "stored"
    if sample is not None:
        original = [{"character": t.character, "message": t.message} for t in sample.dialogues]
        ngram = ngram_scores(simulation, original, continue_from)
        scores["bleu"], scores["rouge_l"], source = ngram.bleu, ngram.rouge_l, "recomputed"
    else:
        scores["bleu"] = _stored_ngram(critique, "bleu", scale)
        scores["rouge_l"] = _stored_ngram(critique, "rouge_l", scale)
    score = case_score(scores)
    recomputed = {**scores, "score": score}
    disagreements = [k for k, v in stored.items()
                     if recomputed.get(k) is None or abs(float(recomputed[k]) - v) > TOLERANCE]  # type: ignore[arg-type]
    domain = case_domain(sample) if sample is not None else to_domain(case.get("domain") or case.get("tag"))
    return RescoredCase(model=model, case_id=cid, domain=domain, actor_rounds=rounds, scores=scores, score=score,
                        stored=stored, disagreements=disagreements, ngram_source=source)


def _test_index(path: str | Path | None) -> dict[str, TestSample]:
    if path is None:
        return {}
    index: dict[str, TestSample] = {}
    for i, sample in enumerate(load_test_set(path)):
        index.setdefault(case_id(sample, i), sample)
        index.setdefault(sample.id, sample)
    return index


def rescore_data(data: Any, *, source: str, test: str | Path | None = None, continue_from: int | None = None,
                 default_model: str | None = None) -> RescoreResult:
    """Rescore the parsed content of an evaluation file (see the module doc)."""
    layout, rows = iter_cases(data, default_model or Path(source).stem)
    info = data.get("incanon") if isinstance(data.get("incanon"), Mapping) else {}
    k = continue_from if continue_from is not None else int(info.get("continue_from", 0) or 0)
    samples = _test_index(test)
    result = RescoreResult(source=source, layout=layout,
                           stored_scores=dict(data.get("scores") or {}) if isinstance(data.get("scores"), Mapping) else {})
    for model, cid, case in rows:
        if not isinstance(case, Mapping) or not isinstance(case.get("critique"), Mapping):
            reason = "no critique (e.g. ground truth)"
            result.skipped[reason] = result.skipped.get(reason, 0) + 1
            continue
        rescored = rescore_case(model, cid, case, sample=samples.get(cid), continue_from=k, scale=100.0)
        result.cases.append(rescored)
    if samples:
        missing = sum(1 for c in result.cases if c.ngram_source == "stored")
        if missing:
            result.report.notes.append(f"{missing} case(s) are not in the test set: their BLEU / ROUGE-L are the stored ones")
    result.disagreeing_cases = sum(1 for c in result.cases if c.disagreements)
    models = list(dict.fromkeys(c.model for c in result.cases))
    for model in models:
        mine = [c for c in result.cases if c.model == model]
        result.report.rows.append(model_row(model, [CaseScores(case_id=c.case_id, domain=c.domain, scores=c.scores)
                                                    for c in mine]))
    if result.disagreeing_cases:
        result.report.notes.append(f"{result.disagreeing_cases} case(s) had stored scores that differ from the "
                                   "recomputed ones (see --json for which)")
    for reason, count in result.skipped.items():
        result.report.notes.append(f"{count} case(s) skipped: {reason}")
    return result


def rescore_file(path: str | Path, *, test: str | Path | None = None, continue_from: int | None = None) -> RescoreResult:
    """Rescore an evaluation file."""
    try:
        return rescore_data(read_json(path), source=str(path), test=test, continue_from=continue_from)
    except InputError as exc:
        if exc.source is None:
            raise InputError(str(exc), source=str(path)) from None
        raise


def evaluation_file(store: RunStore, judged_run: str) -> dict[str, Any]:
    """A judged run in CoSER's evaluation-file layout (BLEU / ROUGE-L as fractions, as CoSER
    stores them), with an ``incanon`` block naming the models and settings."""
    info = store.get_run(judged_run)
    cases: dict[str, Any] = {}
    rows = []
    for s in store.samples(judged_run, status="ok"):
        scores = s.scores or {}
        critique = dict((s.outputs or {}).get("critique") or {})
        critique["bleu"] = None if scores.get("bleu") is None else scores["bleu"] / 100.0
        critique["rouge_l"] = None if scores.get("rouge_l") is None else scores["rouge_l"] / 100.0
        cases[s.item_id] = {"simulation": s.input.get("messages", []), "critique": critique,
                            "score": scores.get("score"), "domain": s.input.get("domain")}
        rows.append(scores)
    agg = aggregate(rows)
    summary = {**agg.dimensions, "avg": agg.average,
               "bleu": None if agg.bleu is None else agg.bleu / 100.0,
               "rouge_l": None if agg.rouge_l is None else agg.rouge_l / 100.0}
    models = info.config.models
    return {"scores": summary, "cases": cases,
            "incanon": {"run": judged_run, "source_run": info.config.dataset.get("source_run"),
                        "model": run_label(models, info.config.params), "models": models,
                        "continue_from": info.config.params.get("continue_from", 0),
                        "rag": info.config.params.get("rag")}}
