"""Samples of a run as the web app lists and opens them.

A list row is a summary (id, type, status, scores, the start of the answer, tokens); the
drill-down is the whole sample with its calls and the judges' rationales pulled out, so every
benchmark's samples open the same way whatever their own fields are.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from incanon.errors import InputError
from incanon.runs import RunStore
from incanon.runs.records import SampleRecord

#: Input fields that name a sample's type, in order of preference (TimeChara's data type,
#: DialSim's question type, SHARP's claim rule, CoSER's tag...).
TYPE_KEYS = ("data_type", "question_type", "type", "claim_type", "rule", "tag", "category", "kind")
#: Output fields that hold the agent's answer, in order of preference.
ANSWER_KEYS = ("answer", "response", "reply", "prediction", "text", "output")
SNIPPET_CHARS = 160
MAX_PAGE = 500


def _nested_question(sample: SampleRecord) -> dict[str, Any]:
    # DialSim stores the question asked in a session as a record of its own.
    question = (sample.outputs or {}).get("question")
    return question if isinstance(question, dict) else {}


def generic_type(sample: SampleRecord) -> str | None:
    """The first of ``TYPE_KEYS`` found in the sample, or None."""
    for source in (sample.input, sample.outputs or {}, _nested_question(sample)):
        for key in TYPE_KEYS:
            value = source.get(key)
            if isinstance(value, (str, int)) and str(value):
                return str(value)
    return None


def type_function(benchmark: str | None) -> Callable[[SampleRecord], str | None]:
    """How samples of ``benchmark`` get their type: the benchmark's report section says what
    its tables group by; otherwise :func:`generic_type`. Looked up once per run, not per sample."""
    if benchmark is not None:
        from incanon.report import builder_for

        builder = builder_for(benchmark)
        if builder is not None and builder.sample_type is not None:
            return builder.sample_type
    return generic_type


def sample_type(sample: SampleRecord, benchmark: str | None = None) -> str | None:
    """The type ``benchmark``'s tables group the sample by (see :func:`type_function`)."""
    return type_function(benchmark)(sample)


def sample_answer(sample: SampleRecord) -> str:
    """The agent's answer (see ``ANSWER_KEYS``), or ``""``."""
    for source in (sample.outputs or {}, _nested_question(sample)):
        for key in ANSWER_KEYS:
            value = source.get(key)
            if isinstance(value, str):
                return value
    return ""


def sample_question(sample: SampleRecord) -> str:
    """What the sample asked, or ``""``."""
    for source in (sample.input, sample.outputs or {}, _nested_question(sample)):
        for key in ("question", "prompt"):
            if isinstance(source.get(key), str):
                return source[key]
    return ""


def _snippet(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= SNIPPET_CHARS else text[: SNIPPET_CHARS - 1] + "…"


def _question(text: str) -> dict[str, str]:
    # The list shows the start; the whole question (its cell's tooltip) only when it was cut.
    short = _snippet(text)
    return {"question": short} if short == text else {"question": short, "question_full": text}


def summary_row(sample: SampleRecord, type_of: Callable[[SampleRecord], str | None] = generic_type) -> dict[str, Any]:
    """One row of a run's sample list (``type_of``: see :func:`type_function`)."""
    return {
        "item_id": sample.item_id, "epoch": sample.epoch, "status": sample.status,
        "type": type_of(sample),
        "scores": dict(sample.scores or {}), **_question(sample_question(sample)),
        "answer": _snippet(sample_answer(sample)), "error": sample.error, "error_type": sample.error_type,
        "calls": sample.usage.calls, "tokens": sample.usage.prompt_tokens + sample.usage.completion_tokens,
        "duration_s": round(sample.duration_s, 3),
    }


#: Fields that hold a judge's reasons besides ``*rationale*`` ones (SHARP's stance detector,
#: CoSER's critics).
REASON_KEYS = ("reason", "critique")


def rationales(sample: SampleRecord) -> dict[str, str]:
    """The judges' rationales of a sample: ``extra`` / ``outputs`` fields named ``*rationale*``
    or in ``REASON_KEYS``; a dict of them (``{"ke": "...", "kh": "..."}``) gives one each."""
    found: dict[str, str] = {}
    for source in (sample.extra or {}, sample.outputs or {}):
        for key, value in source.items():
            if "rationale" not in key and key not in REASON_KEYS:
                continue
            if isinstance(value, str) and value.strip():
                found[key] = value
            elif isinstance(value, dict):
                for name, text in value.items():
                    if isinstance(text, str) and text.strip():
                        found[f"{name} {key.rstrip('s')}"] = text
    return found


def _judge_name(key: str) -> str:
    # "temporal_rationale" is the temporal judge's; a bare "rationale" is the sample's one judge.
    return key.replace("_rationale", "").replace(" rationale", "").strip() if key != "rationale" else "judge"


def judges(sample: SampleRecord, why: dict[str, str]) -> list[dict[str, Any]]:
    """The judges of a sample: ``{name, score, rationale, calls}`` each, from its rationales,
    scores and the judge calls the run stored (``extra["judge_calls"]``, name → calls)."""
    stored = (sample.extra or {}).get("judge_calls")
    stored = stored if isinstance(stored, dict) else {}
    rationale_of = {_judge_name(k): v for k, v in why.items()}
    names = list(dict.fromkeys([*rationale_of, *stored]))
    scores = sample.scores or {}
    only = next(iter(scores.values())) if len(scores) == 1 and len(names) == 1 else None
    return [{"name": n, "score": scores.get(n, only), "rationale": rationale_of.get(n, ""),
             "calls": [c for c in stored.get(n) or [] if isinstance(c, dict)]} for n in names]


def sample_detail(sample: SampleRecord, benchmark: str | None = None) -> dict[str, Any]:
    """The whole sample for the drill-down: input, answer, scores, rationales, calls, usage."""
    extra = dict(sample.extra or {})
    calls = extra.pop("calls", None) or []
    why = rationales(sample)
    for key in list(extra):
        if "rationale" in key or key in REASON_KEYS or key == "judge_calls":
            extra.pop(key)
    return {
        "run_id": sample.run_id, "item_id": sample.item_id, "epoch": sample.epoch, "status": sample.status,
        "type": sample_type(sample, benchmark), "input": sample.input, "answer": sample_answer(sample),
        "outputs": sample.outputs or {}, "scores": dict(sample.scores or {}), "rationales": why,
        "judges": judges(sample, why), "calls": calls,
        "extra": extra, "usage": sample.usage.model_dump(mode="json"), "attempts": sample.attempts,
        "started": sample.started.isoformat() if isinstance(sample.started, datetime) else sample.started,
        "duration_s": sample.duration_s, "error_type": sample.error_type, "error": sample.error,
        "traceback": sample.traceback,
    }


@dataclass(frozen=True)
class SampleQuery:
    """Which samples to list: by status, type and text (in the id, question or answer)."""

    status: str | None = None
    type: str | None = None
    text: str | None = None
    offset: int = 0
    limit: int = 100

    def __post_init__(self) -> None:
        if self.status not in (None, "ok", "error"):
            raise InputError(f"status must be ok or error, not {self.status!r}")
        if self.offset < 0 or not 1 <= self.limit <= MAX_PAGE:
            raise InputError(f"offset must be >= 0 and limit 1..{MAX_PAGE}")

    def matches(self, row: dict[str, Any]) -> bool:
        """True when ``row`` passes every filter."""
        if self.status and row["status"] != self.status:
            return False
        if self.type and row["type"] != self.type:
            return False
        if self.text:
            needle = self.text.lower()
            return any(needle in str(row[k] or "").lower() for k in ("item_id", "question", "answer", "error"))
        return True


class SampleIndex:
    """Summary rows per run, kept until the run changes (a run being written shows its new
    samples on the next request; a finished run is read from the store once)."""

    def __init__(self, store: RunStore) -> None:
        self.store = store
        self._rows: dict[str, tuple[tuple[Any, ...], list[dict[str, Any]]]] = {}
        self._lock = threading.Lock()

    def rows(self, run_id: str) -> list[dict[str, Any]]:
        """Every summary row of ``run_id``, in the order the samples were first recorded."""
        info = self.store.get_run(run_id)
        stamp = (info.updated, info.ok, info.failed)
        with self._lock:
            cached = self._rows.get(run_id)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        type_of = type_function(info.benchmark)
        rows = [summary_row(s, type_of) for s in self.store.samples(run_id)]
        with self._lock:
            self._rows[run_id] = (stamp, rows)
        return rows

    def page(self, run_id: str, query: SampleQuery) -> dict[str, Any]:
        """``{total, matched, offset, rows, types, statuses, scores}`` of ``run_id`` under ``query``."""
        rows = self.rows(run_id)
        matched = [r for r in rows if query.matches(r)]
        score_names = list(dict.fromkeys(name for r in rows for name in r["scores"]))
        return {
            "run_id": run_id, "total": len(rows), "matched": len(matched), "offset": query.offset,
            "rows": matched[query.offset: query.offset + query.limit],
            "types": dict(Counter(r["type"] for r in rows if r["type"] is not None)),
            "statuses": dict(Counter(r["status"] for r in rows)), "scores": score_names,
        }
