"""How a sample is laid out in the run store's ``samples`` table: its columns, the upsert that
records an attempt, and the row codec (values as JSON text, timestamps as ISO 8601)."""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime
from typing import Any

from incanon.models.types import Usage
from incanon.runs.records import SampleRecord, dumps

SAMPLE_COLUMNS_SQL = (
    "run_id, item_id, epoch, input_hash, input, outputs, scores, extra, usage, started, "
    "finished, duration_s, status, error_type, error, traceback, attempts"
)
_COLUMNS = [c.strip() for c in SAMPLE_COLUMNS_SQL.split(",")]
SAMPLE_COLUMNS: tuple[str, ...] = tuple(_COLUMNS)
"""Columns of the samples table, in the order :meth:`RunStore.sample_rows` yields them."""
# One statement per sample: insert, or replace the earlier attempt in place (the key columns
# stay; attempts go up, or restart at 1 when the input under this id changed).
UPSERT = (
    f"INSERT INTO samples ({SAMPLE_COLUMNS_SQL}) VALUES ({', '.join('?' * len(_COLUMNS))})"
    " ON CONFLICT (run_id, item_id, epoch) DO UPDATE SET "
    + ", ".join(f"{c} = excluded.{c}" for c in _COLUMNS if c not in ("run_id", "item_id", "epoch", "attempts"))
    + ", attempts = CASE WHEN samples.input_hash = excluded.input_hash"
    " THEN samples.attempts + 1 ELSE 1 END"
)
RETURNING = " RETURNING attempts"


def ts(value: datetime | None) -> str | None:
    """An ISO 8601 timestamp, or None."""
    return value.isoformat() if value is not None else None


def _loads(text: str | None) -> Any:
    return json.loads(text) if text is not None else None


def sample_row(sample: SampleRecord) -> tuple[Any, ...]:
    """A sample's values in ``SAMPLE_COLUMNS`` order, JSON encoded (attempts start at 1)."""
    return (
        sample.run_id, sample.item_id, sample.epoch, sample.input_hash, dumps(sample.input),
        None if sample.outputs is None else dumps(sample.outputs),
        None if sample.scores is None else dumps(sample.scores),
        None if sample.extra is None else dumps(sample.extra),
        sample.usage.model_dump_json(), ts(sample.started), ts(sample.finished),
        sample.duration_s, sample.status, sample.error_type, sample.error, sample.traceback, 1,
    )


def row_sample(row: sqlite3.Row | tuple[Any, ...]) -> SampleRecord:
    """A sample row (``SAMPLE_COLUMNS``) as a record."""
    return SampleRecord(
        run_id=row[0], item_id=row[1], epoch=row[2], input_hash=row[3],
        input=json.loads(row[4]), outputs=_loads(row[5]), scores=_loads(row[6]),
        extra=_loads(row[7]), usage=Usage.model_validate_json(row[8]),
        started=row[9], finished=row[10], duration_s=row[11], status=row[12],
        error_type=row[13], error=row[14], traceback=row[15], attempts=row[16],
    )
