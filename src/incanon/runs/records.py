"""The values that go in and out of a run: items, outcomes, stored samples, summaries."""

from __future__ import annotations

import hashlib
import json
import math
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from incanon.models.types import Usage
from incanon.runs.config import RunConfig

SampleStatus = Literal["ok", "error"]
RunStatus = Literal["running", "interrupted", "finished", "failed", "crashed", "stopped-budget"]


class RunItem(BaseModel):
    """One unit of work: a benchmark item, identified by ``id`` within its run."""

    model_config = ConfigDict(frozen=True)

    id: str
    """Stable item id; (run, item id, epoch) names one sample."""
    input: dict[str, Any] = Field(default_factory=dict)
    """Everything the task needs (JSON values); its hash detects items that changed."""
    epoch: int = 0
    """Which repetition; set by the runner before the task sees the item."""

    def input_hash(self) -> str:
        """sha256 of the canonical JSON of :attr:`input`."""
        return input_hash(self.input)


def input_hash(value: Any) -> str:
    """sha256 (hex, 16 chars) of ``value`` in canonical JSON."""
    text = _CANONICAL.encode(value)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def to_jsonable(value: Any) -> Any:
    """``value`` as plain JSON data; raises ``TypeError`` for what JSON cannot hold.

    Pydantic models, datetimes, tuples/sets and numpy scalars/arrays are converted; non-finite
    floats become ``None`` (JSON has no NaN, and a NaN score is a missing score).
    """
    try:
        # Plain JSON data (nearly every task's outputs) is copied directly: the round trip
        # through text below cost more than the rest of a light sample's bookkeeping.
        return _plain_copy(value, 0)
    except _NotPlain:
        return json.loads(dumps(value))


class _NotPlain(Exception):
    """A value the direct copy leaves to the JSON round trip."""


_MAX_DEPTH = 64


def _plain_copy(value: Any, depth: int) -> Any:
    """A deep copy of ``value`` made only of dicts with str keys, lists, str, int, bool, None
    and floats (non-finite ones become None, as in :func:`dumps`); else raises ``_NotPlain``."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if kind is float:
        return value if math.isfinite(value) else None
    if depth >= _MAX_DEPTH:
        raise _NotPlain  # deep or circular: the encoder reports it properly
    if kind is dict:
        out = {}
        for key, item in value.items():
            if type(key) is not str:
                raise _NotPlain
            out[key] = _plain_copy(item, depth + 1)
        return out
    if kind is list:
        return [_plain_copy(item, depth + 1) for item in value]
    raise _NotPlain


def _default(obj: Any) -> Any:
    if hasattr(obj, "model_dump"):
        return obj.model_dump(mode="json")
    if isinstance(obj, datetime):
        return obj.isoformat()
    if isinstance(obj, (set, frozenset)):
        return sorted(obj, key=repr)
    if hasattr(obj, "tolist"):  # numpy arrays and scalars
        return obj.tolist()
    raise TypeError(f"{type(obj).__name__} is not JSON-serializable")


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


# Encoders made once: json.dumps with options builds a new encoder on every call, and the
# runner encodes several values per sample.
_CANONICAL = json.JSONEncoder(default=_default, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
_STRICT = json.JSONEncoder(default=_default, ensure_ascii=False, allow_nan=False)
_LENIENT = json.JSONEncoder(default=_default, ensure_ascii=False)


def dumps(value: Any) -> str:
    """Strict JSON text for the store (no NaN, no pickle, no ``str()`` fallbacks)."""
    try:
        return _STRICT.encode(value)
    except ValueError:
        # allow_nan=False found a NaN/inf somewhere: rewrite those as null and try again.
        plain = json.loads(_LENIENT.encode(value))
        return _STRICT.encode(_finite(plain))


class ItemOutcome(BaseModel):
    """What a task returns for one item."""

    outputs: dict[str, Any] = Field(default_factory=dict)
    """What the system under test produced (answers, prompts, retrieved context); JSON values."""
    scores: dict[str, float | None] = Field(default_factory=dict)
    """Metric name → value; ``None`` marks a score that could not be computed."""
    extra: dict[str, Any] = Field(default_factory=dict)
    """Anything else worth keeping (judge rationales, parse notes); JSON values."""

    @field_validator("scores", mode="before")
    @classmethod
    def _plain_scores(cls, value: Any) -> Any:
        # Accept bools and numpy numbers; NaN and inf mean "no score".
        if not isinstance(value, dict):
            return value
        clean: dict[str, float | None] = {}
        for key, score in value.items():
            if score is None:
                clean[str(key)] = None
                continue
            if hasattr(score, "item"):
                score = score.item()
            if not isinstance(score, (int, float)):
                raise TypeError(f"score {key!r} is {type(score).__name__}, expected a number or None")
            number = float(score)
            clean[str(key)] = number if math.isfinite(number) else None
        return clean


class SampleRecord(BaseModel):
    """One stored sample: an item's input, outputs, scores, usage and timing, or its error."""

    run_id: str
    item_id: str
    epoch: int = 0
    input_hash: str
    input: dict[str, Any] = Field(default_factory=dict)
    outputs: dict[str, Any] | None = None
    scores: dict[str, float | None] | None = None
    extra: dict[str, Any] | None = None
    usage: Usage = Field(default_factory=Usage)
    """Model usage of this sample (all attempts' calls are counted in the attempt that ran)."""
    started: datetime | None = None
    finished: datetime | None = None
    duration_s: float = 0.0
    status: SampleStatus = "ok"
    error_type: str | None = None
    """Exception class name when ``status == "error"``."""
    error: str | None = None
    """One-line error message, credentials redacted."""
    traceback: str | None = None
    """Short traceback for unexpected (non-user) errors, credentials redacted."""
    attempts: int = 1
    """How many times this sample has been run (errors are retried on resume)."""


class RunInfo(BaseModel):
    """One row of the run list."""

    id: str
    benchmark: str
    status: str
    created: datetime
    updated: datetime
    ok: int = 0
    failed: int = 0
    total: int | None = None
    """Planned samples (items × epochs) when the runner knew it."""
    config: RunConfig
    totals: dict[str, Any] = Field(default_factory=dict)
    resumed: bool = False
    """True when :meth:`RunStore.create_or_resume` found the run already there."""
    notes: list[str] = Field(default_factory=list)
    """Things to tell the user about this run (e.g. changed templates on resume)."""

    @property
    def done(self) -> int:
        """Samples finished, successfully or not."""
        return self.ok + self.failed


class ScoreStat(BaseModel):
    """Mean and standard error of one numeric score over a run's ok samples."""

    name: str
    n: int
    mean: float | None
    sem: float | None
    """Standard error of the mean (sample std / sqrt(n)); None when n < 2."""
    missing: int = 0
    """Ok samples where this score was None."""

    def format(self, digits: int = 3) -> str:
        """``mean ± sem`` as text."""
        if self.mean is None:
            return "-"
        text = f"{self.mean:.{digits}f}"
        return text + (f" ± {self.sem:.{digits}f}" if self.sem is not None else "")


class RunSummary(BaseModel):
    """Counts, score statistics, usage and errors of one run."""

    run_id: str
    status: str
    ok: int
    failed: int
    total: int | None
    scores: list[ScoreStat]
    usage: Usage
    errors: dict[str, int]
    """Error type → number of samples currently failed with it."""
    attempts: int
    """Attempts summed over samples (more than ok + failed when errors were retried)."""
    duration_s: float
    """Sum of per-sample durations (not wall time: samples run concurrently)."""


class RunResult(BaseModel):
    """What one call of the runner did."""

    run_id: str
    status: RunStatus
    resumed: bool
    ran: int = 0
    """Samples run in this call."""
    ok: int = 0
    """Of those, the ones that succeeded."""
    failed: int = 0
    """Of those, the ones that failed."""
    skipped: int = 0
    """Samples already finished in the store and not run again."""
    replaced: int = 0
    """Samples whose input changed since they were stored; run again and replaced."""
    duplicates: int = 0
    """Items whose id repeated within the input stream; only the first was run."""
    usage: Usage = Field(default_factory=Usage)
    """Model usage of this call."""
    elapsed_s: float = 0.0
    notes: list[str] = Field(default_factory=list)

    @property
    def items_per_s(self) -> float:
        """Samples run per second of wall time in this call."""
        return self.ran / self.elapsed_s if self.elapsed_s > 0 else 0.0
