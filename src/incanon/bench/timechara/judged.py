"""Judged items: the flat rows every TimeChara report is computed from.

A row holds what the report needs and nothing else: who answered (model, method), what kind of
item it was, and the judges' scores. Rows come from run stores (``rows_from_runs``) or from a
JSONL file (``read_judged_jsonl``, for ``incanon timechara rescore``), so a report can always be
recomputed without calling a model.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable, Iterator

from pydantic import BaseModel, Field

from incanon.bench.timechara.items import DATA_TYPES, QUESTION_GENERATIONS, SPATIAL_TYPES
from incanon.bench.timechara.validate import RowProblem, raise_problems
from incanon.errors import InputError
from incanon.judges.hallucination import HallucinationType
from incanon.jsonlines import iter_jsonl_lenient
from incanon.runs.store import RunStore


def spatiotemporal_score(data_type: str, temporal: float | None, spatial: float | None) -> float | None:
    """The item's spatiotemporal consistency: the temporal score for future and past-only
    items; temporal × spatial for past-presence and past-absence (both must hold). None when a
    needed score is missing."""
    if data_type in SPATIAL_TYPES:
        if temporal is None or spatial is None:
            return None
        return float(temporal) * float(spatial)
    return None if temporal is None else float(temporal)


class JudgedRow(BaseModel):
    """One judged answer."""

    model: str
    method: str
    data_type: str
    question_generation: str
    temporal_score: float | None = None
    spatial_score: float | None = None
    personality_score: float | None = None
    series: str = ""
    hallucination_type: str | None = None
    id: str = ""
    """The item id (the row index for published files)."""
    expert_temporal: str | None = None
    """Narrative experts: the temporal expert's verdict (``past`` / ``future``), if it ran."""
    expert_spatial: str | None = None
    """Narrative experts: the spatial expert's verdict (``present`` / ``absent``), if it ran."""
    gap: int | None = None
    """Question's book (volume) minus the character's, for the temporal-gap analysis."""
    witnessed_only: bool | None = None
    """in-canon: True when its reading was cut to the scenes the character witnessed; False when
    the canon store has no record of the character (a published row whose series the store holds
    only as a chunk index), so only the cut at the time point held. None for other methods."""

    @property
    def spatiotemporal(self) -> float | None:
        """The combined score (see :func:`spatiotemporal_score`)."""
        return spatiotemporal_score(self.data_type, self.temporal_score, self.spatial_score)


def _number(value: Any, allowed: tuple[float, float], field: str, bad: list[str]) -> float | None:
    if value is None or value == "" or value == "-":
        return None
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            bad.append(f"{field}: {value!r} is not a number")
            return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        bad.append(f"{field}: expected a number, got {type(value).__name__}")
        return None
    low, high = allowed
    if not low <= value <= high:
        bad.append(f"{field}: {value} is outside {low:g}-{high:g}")
        return None
    return float(value)


def check_judged(raw: Any) -> tuple[JudgedRow | None, list[tuple[str, str]]]:
    """Validate one raw row; the row, or None and (field, problem) pairs."""
    if not isinstance(raw, dict):
        return None, [("row", f"expected a JSON object, got {type(raw).__name__}")]
    problems: list[tuple[str, str]] = []
    for field in ("model", "method"):
        if not isinstance(raw.get(field), str) or not raw[field].strip():
            problems.append((field, "missing or not a string"))
    data_type, qg = raw.get("data_type"), raw.get("question_generation")
    if data_type not in DATA_TYPES:
        problems.append(("data_type", f"{data_type!r} is not one of {', '.join(DATA_TYPES)}"))
    if qg not in QUESTION_GENERATIONS:
        problems.append(("question_generation", f"{qg!r} is not one of {', '.join(QUESTION_GENERATIONS)}"))
    if "temporal_score" not in raw:
        problems.append(("temporal_score", "missing (use null for an unscored item)"))
    if data_type in SPATIAL_TYPES and "spatial_score" not in raw:
        problems.append(("spatial_score", f"missing; a {data_type} item is scored temporal × spatial"))
    values: dict[str, float | None] = {}
    for field, allowed in (("temporal_score", (0, 1)), ("spatial_score", (0, 1)), ("personality_score", (1, 7))):
        bad: list[str] = []
        values[field] = _number(raw.get(field), allowed, field, bad)
        problems.extend((field, b.split(": ", 1)[1]) for b in bad)
    hall = raw.get("hallucination_type")
    if hall is not None and hall not in {t.value for t in HallucinationType}:
        problems.append(("hallucination_type", f"{hall!r} is not a known type"))
    if problems:
        return None, problems
    gap = raw.get("gap")
    return JudgedRow(
        model=raw["model"], method=raw["method"], data_type=data_type, question_generation=qg,
        series=str(raw.get("series") or ""), hallucination_type=hall, id=str(raw.get("id") or ""),
        expert_temporal=raw.get("expert_temporal") if raw.get("expert_temporal") in ("past", "future") else None,
        expert_spatial=raw.get("expert_spatial") if raw.get("expert_spatial") in ("present", "absent") else None,
        gap=gap if isinstance(gap, int) and not isinstance(gap, bool) and abs(gap) < 10_000 else None,
        witnessed_only=raw.get("witnessed_only") if isinstance(raw.get("witnessed_only"), bool) else None, **values,
    ), []


def read_judged_jsonl(path: str | Path) -> list[JudgedRow]:
    """Rows of a judged-items JSONL file; one ``InputError`` names bad lines and fields."""
    path = Path(path).expanduser()
    if not path.is_file():
        raise InputError("no such file", source=str(path))
    rows: list[JudgedRow] = []
    problems: list[RowProblem] = []
    count = 0
    for where, raw in iter_jsonl_lenient(path, "judged items file"):
        count += 1
        if isinstance(raw, InputError):
            problems.append(RowProblem(where, "row", str(raw).split("): ", 1)[-1]))
            continue
        row, found = check_judged(raw)
        problems.extend(RowProblem(where, f, m) for f, m in found)
        if row is not None:
            rows.append(row)
    if count == 0:
        raise InputError("no judged items in the file", source=str(path))
    raise_problems(problems, count, str(path), what="judged TimeChara items")
    return rows


def write_judged_jsonl(rows: Iterable[JudgedRow], path: str | Path) -> int:
    """Write rows as JSONL (the format ``read_judged_jsonl`` reads); returns the count."""
    from incanon.files import write_lines_atomic

    return write_lines_atomic(Path(path).expanduser(),
                              (json.dumps(row.model_dump(mode="json"), ensure_ascii=False) for row in rows))


def _gap(outputs: dict[str, Any]) -> int | None:
    q, c = outputs.get("question_position"), outputs.get("character_position")
    try:
        return int(str(q).split("-")[0]) - int(str(c).split("-")[0]) if q and c else None
    except ValueError:
        return None


def rows_from_runs(store: RunStore, run_ids: Iterable[str]) -> Iterator[JudgedRow]:
    """The judged rows of finished samples of TimeChara runs (failed samples are left out:
    :func:`run_summaries` counts and names them)."""
    for run_id in run_ids:
        info = store.get_run(run_id)
        model = info.config.models.get("agent", "?")
        method = info.config.methods[0] if info.config.methods else "?"
        for sample in store.samples(run_id, status="ok"):
            x, scores, outputs = sample.input, sample.scores or {}, sample.outputs or {}
            details = (sample.extra or {}).get("details") or {}
            temporal = details.get("temporal") if isinstance(details.get("temporal"), dict) else {}
            yield JudgedRow(
                model=model, method=method, data_type=x.get("data_type", ""), id=sample.item_id,
                question_generation=x.get("question_generation", ""), series=str(x.get("series", "")),
                temporal_score=scores.get("temporal"), spatial_score=scores.get("spatial"),
                personality_score=scores.get("personality"),
                hallucination_type=outputs.get("hallucination_type"),
                expert_temporal=temporal.get("status"), expert_spatial=details.get("spatial"),
                gap=_gap(outputs),
                witnessed_only=details["witnessed_only"] if isinstance(details.get("witnessed_only"), bool) else None,
            )


class RunSummary(BaseModel):
    """What happened to every item of one run: the counts shown next to the table."""

    run_id: str
    model: str
    method: str
    status: str
    """The run's status (``finished``, ``partial``, ``running``...)."""
    total: int | None = None
    """Items planned."""
    judged: int = 0
    """Items answered and given a spatiotemporal score."""
    failed: int = 0
    """Items that raised an error (no answer or no judgement)."""
    unjudged: int = 0
    """Items answered whose judge gave no readable score even after the repair call."""
    failed_ids: list[str] = Field(default_factory=list)
    first_error: str | None = None
    score_reading: str | None = None
    """How the run read the judges' scores (``authors`` / ``incanon``; None for older runs)."""
    readings_disagree: int = 0
    """Items where the other reading of at least one judge's text gives a different score."""


def run_summaries(store: RunStore, run_ids: Iterable[str]) -> list[RunSummary]:
    """Per run: status, judged / failed / unjudged counts and the ids of failed items."""
    out = []
    for run_id in run_ids:
        info = store.get_run(run_id)
        failed = list(store.samples(run_id, status="error"))
        unjudged = sum(1 for s in store.samples(run_id, status="ok")
                       if spatiotemporal_score(s.input.get("data_type", ""), (s.scores or {}).get("temporal"),
                                               (s.scores or {}).get("spatial")) is None)
        extras = [s.extra or {} for s in store.samples(run_id, status="ok")]
        # A run names its reading only when it overrides its protocol's (see evaluate.py).
        protocol = info.config.params.get("protocol")
        reading = info.config.params.get("score_reading") or (
            {"paper": "authors", "incanon": "incanon"}.get(protocol) if isinstance(protocol, str) else None)
        out.append(RunSummary(
            run_id=run_id, model=info.config.models.get("agent", "?"),
            method=info.config.methods[0] if info.config.methods else "?", status=info.status,
            total=info.total, judged=info.ok - unjudged, failed=len(failed), unjudged=unjudged,
            failed_ids=[s.item_id for s in failed], first_error=failed[0].error if failed else None,
            score_reading=reading if isinstance(reading, str) else None,
            readings_disagree=sum(1 for e in extras if e.get("readings_disagree")),
        ))
    return out
