"""Judged answers in and out: from run stores, and as JSONL for ``incanon sharp rescore``.

A JSONL line is one :class:`JudgedAnswer`: ``{work, main_character, role, affection, claim_id,
claim_label, stance, backbone_stance}`` plus optional ``interactions`` (for the correlation),
``model``, ``method``, ``backbone``, ``lang``, ``script_lang`` (report rows are grouped by these)
and ``meta`` (Table 4's model columns).

Stances are read strictly: FAVOR, AGAINST or NEUTRAL in any case, or null for "no stance was
detected". A log is an audit trail, so "None", "unclear", "pro" or "" are errors naming the
line, never quietly read as a stance (a "None" counted as NEUTRAL changes SR and AR).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

from pydantic import ValidationError

from incanon.bench.sharp.evaluate import BENCHMARK
from incanon.bench.sharp.metrics import MODES, JudgedAnswer, Mode
from incanon.bench.sharp.stance import LABELS
from incanon.errors import ConfigError, InputError
from incanon.files import write_lines_atomic
from incanon.jsonlines import iter_jsonl_objects
from incanon.runs.store import RunStore

_EXPECTED = ("expected work, main_character, role, affection high|low|null, claim_id, claim_label "
             "factual|counterfactual, stance FAVOR|AGAINST|NEUTRAL|null")


def run_mode(store: RunStore, run_id: str) -> Mode:
    """The mode a SHARP run was evaluated in (ConfigError for runs of other benchmarks)."""
    config = store.get_run(run_id).config
    if config.benchmark != BENCHMARK:
        raise ConfigError(f"run {run_id} is a {config.benchmark} run, not a SHARP run")
    mode = config.params.get("mode", "factual")
    return mode if mode in MODES else "factual"


@dataclass
class RunCounts:
    """What one run holds: role answers judged, answered but unjudged, failed; the same for
    the backbone items; and the run's status."""

    run_id: str
    method: str = ""
    status: str = ""
    judged: int = 0
    unjudged: int = 0
    """Answered, but the detector gave no readable stance even after its repair turn."""
    failed: int = 0
    """Samples that ended in an error (retried on resume)."""
    backbone: dict[str, int] = field(default_factory=dict)


def answers_from_run(store: RunStore, run_id: str, counts: RunCounts | None = None,
                     meta: dict[str, str] | None = None) -> list[JudgedAnswer]:
    """The judged role answers of one run, each joined with the backbone's stance on its claim
    (when the run asked the backbone). Failed samples are not answers and are left out (counted
    in ``counts`` when given). ``meta`` fills Table 4 keys the run did not record."""
    info = store.get_run(run_id)
    config = info.config
    models, method = config.models, (config.methods or [""])[0]
    run_meta = {**(meta or {}), **{str(k): str(v) for k, v in (config.params.get("meta") or {}).items()}}
    script_lang = str(config.dataset.get("script_lang") or "")
    backbone: dict[str, str | None] = {}
    roles = []
    tally = counts if counts is not None else RunCounts(run_id)
    tally.method, tally.status = method, info.status
    bb = {"judged": 0, "unjudged": 0, "failed": 0}
    for sample in store.samples(run_id):
        x, out = sample.input, sample.outputs or {}
        kind = x.get("kind")
        if sample.status != "ok":
            if kind == "backbone":
                bb["failed"] += 1
            else:
                tally.failed += 1
            continue
        if kind == "backbone":
            backbone[x["claim"]["id"]] = out.get("stance")
            bb["judged" if out.get("stance") else "unjudged"] += 1
        elif kind == "role":
            roles.append((x, out))
            if out.get("stance"):
                tally.judged += 1
            else:
                tally.unjudged += 1
    if backbone or bb["failed"]:
        tally.backbone = bb
    return [JudgedAnswer(
        work=x["work"], main_character=x["main_character"], role=x["role"], affection=x.get("affection"),
        claim_id=x["claim"]["id"], claim_label=x["claim"]["label"], stance=out.get("stance"),
        backbone_stance=backbone.get(x["claim"]["id"]), interactions=x.get("interactions"),
        model=models.get("agent", ""), method=method, backbone=models.get("backbone", ""),
        lang=x["claim"].get("lang", "en"), script_lang=x.get("script_lang", script_lang), meta=run_meta,
    ) for x, out in roles]


def answers_from_runs(store: RunStore, run_ids: Iterable[str], counts: list[RunCounts] | None = None,
                      meta: dict[str, str] | None = None) -> list[JudgedAnswer]:
    """:func:`answers_from_run` of several runs, in order, checked for consistency
    (:func:`check_consistent`); ``counts`` collects each run's :class:`RunCounts`."""
    labelled: list[tuple[str, JudgedAnswer]] = []
    for run_id in run_ids:
        tally = RunCounts(run_id)
        for answer in answers_from_run(store, run_id, tally, meta):
            labelled.append((f"run {run_id}", answer))
        if counts is not None:
            counts.append(tally)
    check_consistent(labelled, str(store.path))
    return [a for _, a in labelled]


def _row_key(a: JudgedAnswer) -> tuple[str, ...]:
    return (a.model, a.method, a.backbone, a.lang, a.script_lang, a.work, a.main_character, a.role)


def check_consistent(labelled: Iterable[tuple[str, JudgedAnswer]], source: str) -> None:
    """Reject answers that cannot be scored together: one role (of one model, method, work and
    main character) with two affection levels, or two answers of one role to one claim. The
    error names both places (``line 3`` and ``line 9``, or the runs)."""
    affection: dict[tuple[str, ...], tuple[str, str | None]] = {}
    seen: dict[tuple[str, ...], str] = {}
    for where, a in labelled:
        key = _row_key(a)
        first = affection.setdefault(key, (where, a.affection))
        if first[1] != a.affection:
            raise InputError(
                f"role {a.role!r} of {a.work} / {a.main_character} has affection {first[1] or 'null'} at {first[0]} "
                f"and {a.affection or 'null'} at {where}; one role has one level per report (evaluate other "
                "positions as other models or methods, or fix the log)", source=source)
        claim_key = (*key, a.claim_id)
        if claim_key in seen:
            raise InputError(f"role {a.role!r} of {a.work} / {a.main_character} answers claim {a.claim_id} twice, "
                             f"at {seen[claim_key]} and {where} (a log holds one answer per role and claim)",
                             source=source)
        seen[claim_key] = where


def _strict(data: dict, source: str, where: str) -> dict:
    for key in ("stance", "backbone_stance"):
        value = data.get(key)
        if value is None:
            continue
        if not isinstance(value, str) or value.strip().upper() not in LABELS:
            raise InputError(f"field {key!r}: {value!r} is not a stance (FAVOR, AGAINST, NEUTRAL, or null when "
                             "none was detected)", source=source, where=where)
        data[key] = value.strip().upper()
    if isinstance(data.get("affection"), str):
        data["affection"] = data["affection"].strip().lower() or None
    return data


def iter_judged_jsonl(path: str | os.PathLike[str]) -> Iterator[tuple[str, JudgedAnswer]]:
    """Stream ``(line, answer)`` from a JSONL file; a bad line raises InputError naming it."""
    source = Path(path).expanduser()
    for where, data in iter_jsonl_objects(source, "judged answers file"):
        try:
            yield where, JudgedAnswer.model_validate(_strict(data, str(source), where))
        except ValidationError as exc:
            first = exc.errors()[0]
            name = ".".join(str(p) for p in first["loc"]) or "record"
            raise InputError(f"field {name!r}: {first['msg']} ({_EXPECTED})", source=str(source), where=where) from None


def read_judged_jsonl(path: str | os.PathLike[str]) -> list[JudgedAnswer]:
    """Every judged answer of a JSONL file, checked for consistency; an empty file is an error."""
    labelled = list(iter_judged_jsonl(path))
    source = str(Path(path).expanduser())
    if not labelled:
        raise InputError("the judged answers file holds no answers", source=source)
    check_consistent(labelled, source)
    return [a for _, a in labelled]


def write_judged_jsonl(answers: Iterable[JudgedAnswer], path: str | os.PathLike[str]) -> int:
    """Write judged answers as JSONL, atomically; returns how many."""
    return write_lines_atomic(path, (answer.model_dump_json() for answer in answers))
