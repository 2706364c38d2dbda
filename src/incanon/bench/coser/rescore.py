"""Recompute every score from a file of simulations with critiques, without calling a model.

Reads CoSER's evaluation files as its evaluator writes them::

    {"scores": {...}, "cases": {"<book>-<i_p>-<i_c>": {"simulation": [{"role", "content"}],
                                                       "critique": {"<Dimension>": {"flaws": [...]},
                                                                    "bleu": 0.05, "rouge_l": 0.12},
                                                       "score": ...}}}

the multi-model variant of its released files (``"cases": {"<model>": {"<case id>": {...}}}``,
where cases without a critique, such as the ground truth, are skipped), and the files
``incanon coser judge --out`` writes (the same layout plus an ``incanon`` block), and CoSER's
simulation files (``exp/simulation/*.json``: a list of ``{"book_title", "i_p", "i_c",
"circumstance", "simulation"}``, no critiques), whose BLEU / ROUGE-L are computed against the
original dialogue each entry carries. Dimension scores are recomputed from the flaws (severities
counted as the reference counts them) and the simulation's actor rounds; stored scores are
compared with them and disagreements counted. BLEU / ROUGE-L are recomputed when the test set is
given (evaluation files hold no reference dialogue); a recomputed figure that differs from the
stored one is a disagreement too, named in the notes with both means. Without a test set the
stored values (fractions in CoSER's files) are carried over as percentages.
"""

from __future__ import annotations

import re

from pathlib import Path
from typing import Any, Iterator, Mapping

from pydantic import BaseModel, Field

from incanon.bench.coser.formats import TestSample
from incanon.bench.coser.files import load_test_set, read_json
from incanon.bench.coser.metrics import ngram_scores
from incanon.bench.coser.report import CaseScores, GcaReport, model_row, run_label
from incanon.bench.coser.scoring import (
    DIMENSIONS, LENGTH_CREDIT, PENALTY, actor_rounds, aggregate, canonical_dimension, case_score, coerce_flaws,
    dimension_score,
)
from incanon.bench.coser.simulation.case import case_domain, case_id, to_domain
from incanon.errors import InputError
from incanon.runs import RunStore

TOLERANCE = 0.01
"""Stored and recomputed scores closer than this agree."""

UNCAPPED_NOTE = (
    "the reference evaluator's first release (gca_evaluation/eval_reproduce.py before commit 0e11992, "
    "2025-02-18) computed max(0, 100 - 5 x (sum of severities - 0.3 x actor rounds)) without the upper "
    "cap of 100, so a case with few flaws and many actor rounds scored above 100; later releases and "
    "incanon cap at 100")
"""Why some of CoSER's older released evaluation files hold dimension scores above 100."""


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
    """``recomputed`` (from the test set or the simulation file) or ``stored``."""
    stored_ngram: dict[str, float | None] = Field(default_factory=dict)
    """BLEU / ROUGE-L the file held (0-100), when it held them."""
    uncapped: list[str] = Field(default_factory=list)
    """Dimensions whose stored score is above 100 and equals the uncapped formula of the
    reference's first evaluator (``UNCAPPED_NOTE``): the disagreement is explained."""


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


def is_simulation_file(data: Any) -> bool:
    """CoSER's ``exp/simulation/*.json``: a list of entries with a circumstance and a simulation."""
    return isinstance(data, list) and bool(data) and all(
        isinstance(e, Mapping) and "simulation" in e and "circumstance" in e for e in data)


def simulation_file_cases(data: list[Any], *, source: str) -> dict[str, Any]:
    """The entries of a simulation file as evaluation-file cases keyed ``<book>-<i_p>-<i_c>``,
    each with the original dialogue it carries (checked as a test case is)."""
    from incanon.bench.coser.files import check_case

    cases: dict[str, Any] = {}
    for i, entry in enumerate(data):
        circumstance = entry["circumstance"]
        check_case(circumstance, source=source, prefix=f"[{i}].circumstance")
        if not isinstance(entry["simulation"], list):
            raise InputError("'simulation' must be a list of messages", source=source, where=f"[{i}].simulation")
        key = f"{entry.get('book_title', circumstance.get('book'))}-{entry.get('i_p')}-{entry.get('i_c')}"
        cases[key] = {"simulation": entry["simulation"], "reference": circumstance["dialogues"],
                      "domain": circumstance.get("tag")}
    return cases


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
                 continue_from: int, scale: float = 100.0, length_penalty: bool = True) -> RescoredCase:
    """Recompute one case's scores from its flaws and simulation; stored BLEU / ROUGE-L are
    multiplied by ``scale`` (CoSER's files and incanon's exports both store fractions).
    ``length_penalty=False`` scores without the 1.5-points-per-round correction."""
    simulation = [m for m in case.get("simulation") or [] if isinstance(m, Mapping)]
    rounds = actor_rounds(simulation)
    critique = case.get("critique") or {}
    by_dim = {canonical_dimension(str(k)): v for k, v in critique.items() if canonical_dimension(str(k))}
    scores: dict[str, float | None] = {}
    stored: dict[str, float | None] = {}
    uncapped: list[str] = []
    for dimension in DIMENSIONS:
        entry = by_dim.get(dimension)
        if not isinstance(entry, Mapping) or "flaws" not in entry:
            scores[dimension] = None
            continue
        flaws = coerce_flaws(entry.get("flaws") or [])
        scores[dimension] = dimension_score((f.severity for f in flaws), rounds,
                                            length_credit=LENGTH_CREDIT if length_penalty else 0.0)
        if isinstance(entry.get("score"), (int, float)):
            stored[dimension] = float(entry["score"])
            credit = LENGTH_CREDIT if length_penalty else 0.0
            # The first released evaluator had no upper cap: check the stored figure is that one.
            raw = max(0.0, 100.0 - PENALTY * (sum(float(f.severity) for f in flaws) - credit * rounds))
            if stored[dimension] > 100.0 + TOLERANCE and abs(raw - stored[dimension]) <= TOLERANCE:
                uncapped.append(dimension)
    if isinstance(case.get("score"), (int, float)):
        stored["score"] = float(case["score"])
    source = "stored"
    stored_ngram = {k: _stored_ngram(critique, k, scale) for k in ("bleu", "rouge_l")}
    original: list[Any] | None = None
    if isinstance(case.get("reference"), list):
        original = list(case["reference"])
    elif sample is not None:
        original = [{"character": t.character, "message": t.message} for t in sample.dialogues]
    if original is not None:
        ngram = ngram_scores(simulation, original, continue_from)
        scores.update(ngram.as_scores())
        source = "recomputed"
    else:
        scores.update(stored_ngram)
    score = case_score(scores)
    recomputed = {**scores, "score": score}
    disagreements = [k for k, v in stored.items()
                     if recomputed.get(k) is None or abs(float(recomputed[k]) - v) > TOLERANCE]  # type: ignore[arg-type]
    if source == "recomputed":
        disagreements += [k for k, v in stored_ngram.items()
                          if v is not None and abs(float(scores[k]) - v) > TOLERANCE]  # type: ignore[arg-type]
    domain = case_domain(sample) if sample is not None else to_domain(case.get("domain") or case.get("tag"))
    return RescoredCase(model=model, case_id=cid, domain=domain, actor_rounds=rounds, scores=scores, score=score,
                        stored=stored, disagreements=disagreements, ngram_source=source,
                        stored_ngram={k: v for k, v in stored_ngram.items() if v is not None},
                        uncapped=uncapped)


def _test_index(path: str | Path | None) -> dict[str, TestSample]:
    if path is None:
        return {}
    index: dict[str, TestSample] = {}
    for i, sample in enumerate(load_test_set(path)):
        index.setdefault(case_id(sample, i), sample)
        index.setdefault(sample.id, sample)
    return index


def _ngram_notes(cases: list[RescoredCase]) -> list[str]:
    """One note per n-gram figure whose recomputed value replaced a different stored one."""
    notes = []
    for key, label in (("bleu", "BLEU"), ("rouge_l", "ROUGE-L")):
        changed = [c for c in cases if key in c.disagreements]
        if changed:
            stored = sum(c.stored_ngram[key] for c in changed) / len(changed)
            new = sum(float(c.scores[key] or 0.0) for c in changed) / len(changed)
            notes.append(f"{label} recomputed differs from the stored figure in {len(changed)} case(s) "
                         f"(mean over them: stored {stored:.2f}, recomputed {new:.2f}); the table shows the "
                         "recomputed figures")
    return notes


def rescore_data(data: Any, *, source: str, test: str | Path | None = None, continue_from: int | None = None,
                 default_model: str | None = None, length_penalty: bool = True) -> RescoreResult:
    """Rescore the parsed content of an evaluation or simulation file (see the module doc)."""
    if is_simulation_file(data):
        data = {"cases": simulation_file_cases(data, source=source)}
        layout, rows = "coser-simulation", iter_cases(data, default_model or Path(source).stem)[1]
    else:
        layout, rows = iter_cases(data, default_model or Path(source).stem)
    info = data.get("incanon") if isinstance(data.get("incanon"), Mapping) else {}
    k = continue_from if continue_from is not None else int(info.get("continue_from", 0) or 0)
    samples = _test_index(test)
    result = RescoreResult(source=source, layout=layout,
                           stored_scores=dict(data.get("scores") or {}) if isinstance(data.get("scores"), Mapping) else {})
    for model, cid, case in rows:
        simulated_only = layout == "coser-simulation"
        if not isinstance(case, Mapping) or not (simulated_only or isinstance(case.get("critique"), Mapping)):
            reason = "no critique (e.g. ground truth)"
            result.skipped[reason] = result.skipped.get(reason, 0) + 1
            continue
        rescored = rescore_case(model, cid, case, sample=samples.get(cid), continue_from=k, scale=100.0,
                                length_penalty=length_penalty)
        result.cases.append(rescored)
    if not result.cases:
        raise InputError("no case to rescore: every case lacks a critique" if result.skipped
                         else "no case to rescore: 'cases' is empty", source=source, where="cases")
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
    result.report.notes.extend(_ngram_notes(result.cases))
    judged = [c for c in result.cases if any(k_ not in ("bleu", "rouge_l") for k_ in c.disagreements)]
    if judged:
        result.report.notes.append(f"{len(judged)} case(s) had stored dimension scores that differ from the "
                                   "recomputed ones (see --json for which)")
    over = [c for c in result.cases if c.uncapped]
    if over:
        top = max(c.stored[d] or 0.0 for c in over for d in c.uncapped)
        result.report.notes.append(f"{len(over)} of them store dimension scores above 100 (up to {top:g}): "
                                   f"{UNCAPPED_NOTE}")
    if layout == "coser-simulation":
        result.report.notes.append("simulation file: no critiques, BLEU / ROUGE-L only (judge the cases to get "
                                   "the four dimensions)")
    if not length_penalty:
        result.report.length_correction = False
        result.report.notes.append("scored without the length correction (--no-length-penalty)")
    for reason, count in result.skipped.items():
        result.report.notes.append(f"{count} case(s) skipped: {reason}")
    return result


NO_PENALTY_NAME = re.compile(r"[-_]no[-_]length[-_]penalty$", re.IGNORECASE)
"""The name CoSER gives the evaluation files it scored without the length correction
(``<setting>-no_length_penalty.json``, also written ``_no_length_penalty``)."""


def named_without_penalty(path: str | Path) -> bool:
    """Does the file's name say it was scored without the length correction?"""
    return bool(NO_PENALTY_NAME.search(Path(path).stem))


def rescore_file(path: str | Path, *, test: str | Path | None = None, continue_from: int | None = None,
                 length_penalty: bool | None = None) -> RescoreResult:
    """Rescore an evaluation or simulation file. ``length_penalty`` None: as the file's name says
    (a ``*-no_length_penalty`` file without the correction, any other with it), noted in the
    report; True / False: as asked (a note says so when the name says otherwise)."""
    named = named_without_penalty(path)
    penalty = (not named) if length_penalty is None else length_penalty
    data = read_json(path)

    def scored(with_penalty: bool) -> RescoreResult:
        try:
            return rescore_data(data, source=str(path), test=test, continue_from=continue_from,
                                length_penalty=with_penalty)
        except InputError as exc:
            if exc.source is None:
                raise InputError(str(exc), source=str(path)) from None
            raise

    result = scored(penalty)
    if penalty and not named and result.disagreeing_cases:
        # A *-no_length_penalty file under another name disagrees on every case; say which flag
        # would read it as stored rather than leave "100 disagree" unexplained.
        agree = result.disagreeing_cases - scored(False).disagreeing_cases
        if agree > 0:
            result.report.notes.append(
                f"{agree} of the {result.disagreeing_cases} disagreeing case(s) agree when scored without the "
                "length correction: the file may have been scored as CoSER's *-no_length_penalty files are "
                "(try --no-length-penalty)")
    if named and length_penalty is None:
        result.report.notes = [n for n in result.report.notes if "--no-length-penalty" not in n]
        result.report.notes.append("the file's name says no_length_penalty: scored without the length "
                                   "correction, as CoSER scored it (--length-penalty scores with it)")
    elif named and penalty:
        result.report.notes.append("the file's name says no_length_penalty, but it was scored with the length "
                                   "correction as asked (--length-penalty): the stored scores will disagree")
    return result


def evaluation_file(store: RunStore, judged_run: str, epoch: int = 0) -> dict[str, Any]:
    """One epoch of a judged run in CoSER's evaluation-file layout (BLEU / ROUGE-L as fractions,
    as CoSER stores them), with an ``incanon`` block naming the models and settings."""
    info = store.get_run(judged_run)
    cases: dict[str, Any] = {}
    rows = []
    for s in store.samples(judged_run, status="ok"):
        if s.epoch != epoch:
            continue
        scores = s.scores or {}
        critique = dict((s.outputs or {}).get("critique") or {})
        critique["bleu"] = None if scores.get("bleu") is None else scores["bleu"] / 100.0
        critique["rouge_l"] = None if scores.get("rouge_l") is None else scores["rouge_l"] / 100.0
        simulation = (s.outputs or {}).get("simulation") or s.input.get("messages", [])
        cases[s.item_id] = {"simulation": simulation, "critique": critique,
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
                        "continue_from": info.config.params.get("continue_from", 0), "epoch": epoch,
                        "rag": info.config.params.get("rag")}}
