"""Export a run's samples as JSON Lines, CSV or Parquet, to a stream or atomically to a file.

JSON Lines keeps each sample whole. CSV and Parquet are one flat row per sample, for
spreadsheets, pandas and DuckDB: the sample's keys (``run_id``, ``item_id``, ``epoch``,
``status``, error, timing, attempts), usage (``usage.calls``, ``usage.prompt_tokens``...), and
``scores.<name>``, ``input.<name>``, ``outputs.<name>`` for each top-level field; a field whose
value is not a number, text or boolean is written as its JSON text.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from incanon.errors import ConfigError
from incanon.files import atomic_writer
from incanon.runs.records import SampleRecord
from incanon.runs.store import RunStore

FORMATS = ("jsonl", "csv", "parquet")
"""What ``runs export --format`` writes."""

_KEYS = ("run_id", "item_id", "epoch", "status", "error_type", "error", "started", "finished", "duration_s", "attempts")


def sample_json(sample: SampleRecord) -> dict[str, Any]:
    """One sample as the JSON object written per line."""
    return sample.model_dump(mode="json")


def _cell(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def flat_row(sample: SampleRecord) -> dict[str, Any]:
    """One sample as a flat row (see the module docstring)."""
    data = sample_json(sample)
    row: dict[str, Any] = {key: _cell(data.get(key)) for key in _KEYS}
    for key, value in (data.get("usage") or {}).items():
        row[f"usage.{key}"] = _cell(value)
    for part in ("scores", "input", "outputs"):
        value = data.get(part)
        if isinstance(value, dict):
            for key, item in value.items():
                row[f"{part}.{key}"] = _cell(item)
        elif value is not None:
            row[part] = _cell(value)
    return row


def _columns(rows: Iterator[dict[str, Any]]) -> list[str]:
    seen: dict[str, None] = {}
    for row in rows:
        seen.update(dict.fromkeys(row))
    fixed = [k for k in _KEYS if k in seen]
    rest = sorted(k for k in seen if k not in _KEYS)
    order = {"usage.": 0, "scores.": 1, "input.": 2, "outputs.": 3}
    return fixed + sorted(rest, key=lambda k: (next((v for p, v in order.items() if k.startswith(p)), 4), k))


def write_jsonl(store: RunStore, run_id: str, stream: TextIO, *, status: str | None = None) -> int:
    """Write one JSON object per sample of ``run_id`` to ``stream``; returns the count."""
    count = 0
    for sample in store.samples(run_id, status=status):
        stream.write(json.dumps(sample_json(sample), ensure_ascii=False) + "\n")
        count += 1
    return count


def write_csv(store: RunStore, run_id: str, stream: TextIO, *, status: str | None = None) -> int:
    """Write one CSV row per sample (a header first); two passes, so the columns are the union."""
    columns = _columns(flat_row(s) for s in store.samples(run_id, status=status))
    writer = csv.DictWriter(stream, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    count = 0
    for sample in store.samples(run_id, status=status):
        writer.writerow(flat_row(sample))
        count += 1
    return count


def export_samples(store: RunStore, run_id: str, path: str | Path, *, fmt: str = "jsonl",
                   status: str | None = None) -> int:
    """Write the run's samples to ``path`` in ``fmt`` atomically: readers see the old file or the
    whole new one. Returns the count."""
    if fmt not in FORMATS:
        raise ConfigError(f"--format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    if fmt == "parquet":
        return _export_parquet(store, run_id, Path(path).expanduser(), status=status)
    with atomic_writer(path) as stream:
        if fmt == "csv":
            return write_csv(store, run_id, stream, status=status)
        return write_jsonl(store, run_id, stream, status=status)


def export_jsonl(store: RunStore, run_id: str, path: str | Path, *, status: str | None = None) -> int:
    """:func:`export_samples` as JSON Lines."""
    return export_samples(store, run_id, path, fmt="jsonl", status=status)


def _export_parquet(store: RunStore, run_id: str, target: Path, *, status: str | None) -> int:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise ConfigError("Parquet export needs pyarrow: pip install 'incanon[hf]'") from None
    rows = [flat_row(s) for s in store.samples(run_id, status=status)]
    columns = _columns(iter(rows))
    table_data: dict[str, list[Any]] = {c: [] for c in columns}
    for row in rows:
        for column in columns:
            table_data[column].append(row.get(column))
    arrays = {}
    for column, values in table_data.items():
        try:
            arrays[column] = pa.array(values)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            # Mixed kinds in one column (a score that is sometimes text): keep it as text.
            arrays[column] = pa.array([None if v is None else str(v) for v in values], type=pa.string())
    table = pa.table(arrays) if arrays else pa.table({"run_id": pa.array([], type=pa.string())})
    with atomic_writer(target, binary=True) as stream:
        pq.write_table(table, stream)
    return len(rows)
