"""Judged answers in and out: from run stores, and as JSONL for ``incanon sharp rescore``.

A JSONL line is one :class:`JudgedAnswer`: ``{work, main_character, role, affection, claim_id,
claim_label, stance, backbone_stance}`` plus optional ``interactions`` (for the correlation),
``model``, ``method``, ``backbone`` and ``lang`` (report rows are grouped by these).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable, Iterator

from pydantic import ValidationError

from incanon.bench.sharp.evaluate import BENCHMARK
from incanon.bench.sharp.metrics import MODES, JudgedAnswer, Mode
from incanon.bench.sharp.stance import to_stance
from incanon.errors import ConfigError, InputError
from incanon.files import iter_jsonl_objects, write_lines_atomic
from incanon.runs.store import RunStore


def run_mode(store: RunStore, run_id: str) -> Mode:
    """The mode a SHARP run was evaluated in (ConfigError for runs of other benchmarks)."""
    config = store.get_run(run_id).config
    if config.benchmark != BENCHMARK:
        raise ConfigError(f"run {run_id} is a {config.benchmark} run, not a SHARP run")
    mode = config.params.get("mode", "factual")
    return mode if mode in MODES else "factual"


def answers_from_run(store: RunStore, run_id: str) -> list[JudgedAnswer]:
    """The judged role answers of one run, each joined with the backbone's stance on its claim
    (when the run asked the backbone). Failed samples are not answers and are left out."""
    config = store.get_run(run_id).config
    models, method = config.models, (config.methods or [""])[0]
    backbone: dict[str, str | None] = {}
    roles = []
    for sample in store.samples(run_id, status="ok"):
        x, out = sample.input, sample.outputs or {}
        if x.get("kind") == "backbone":
            backbone[x["claim"]["id"]] = out.get("stance")
        elif x.get("kind") == "role":
            roles.append((x, out))
    return [JudgedAnswer(
        work=x["work"], main_character=x["main_character"], role=x["role"], affection=x.get("affection"),
        claim_id=x["claim"]["id"], claim_label=x["claim"]["label"], stance=out.get("stance"),
        backbone_stance=backbone.get(x["claim"]["id"]), interactions=x.get("interactions"),
        model=models.get("agent", ""), method=method, backbone=models.get("backbone", ""),
        lang=x["claim"].get("lang", "en"),
    ) for x, out in roles]


def answers_from_runs(store: RunStore, run_ids: Iterable[str]) -> list[JudgedAnswer]:
    """:func:`answers_from_run` of several runs, in order."""
    return [a for run_id in run_ids for a in answers_from_run(store, run_id)]


def iter_judged_jsonl(path: str | os.PathLike[str]) -> Iterator[JudgedAnswer]:
    """Stream judged answers from a JSONL file; a bad line raises InputError naming it."""
    source = Path(path).expanduser()
    for where, data in iter_jsonl_objects(source, "judged answers file"):
        for key in ("stance", "backbone_stance"):
            if isinstance(data.get(key), str) and data[key].strip():
                data[key] = to_stance(data[key]) or data[key]  # unreadable: the validator names it
            elif data.get(key) == "":
                data[key] = None
        if isinstance(data.get("affection"), str):
            data["affection"] = data["affection"].strip().lower() or None
        try:
            yield JudgedAnswer.model_validate(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(str(p) for p in first["loc"]) or "record"
            raise InputError(f"field {field!r}: {first['msg']} (expected work, main_character, role, affection "
                             "high|low|null, claim_id, claim_label factual|counterfactual, stance "
                             "FAVOR|AGAINST|NEUTRAL|null)", source=str(source), where=where) from None


def read_judged_jsonl(path: str | os.PathLike[str]) -> list[JudgedAnswer]:
    """Every judged answer of a JSONL file."""
    return list(iter_judged_jsonl(path))


def write_judged_jsonl(answers: Iterable[JudgedAnswer], path: str | os.PathLike[str]) -> int:
    """Write judged answers as JSONL, atomically; returns how many."""
    return write_lines_atomic(path, (answer.model_dump_json() for answer in answers))
