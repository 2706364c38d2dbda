"""Export a run's samples as JSON Lines, CSV or Parquet, to a stream or atomically to a file.

Every row (and every JSON object) starts with what the run was: ``benchmark``, ``model`` (the
model under test) and ``method``, so files of several runs can be concatenated and grouped.

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
from incanon.runs.records import RunInfo, SampleRecord
from incanon.runs.store import RunStore

FORMATS = ("jsonl", "csv", "parquet")
"""What ``runs export --format`` writes."""

_RUN_KEYS = ("benchmark", "model", "method")
_KEYS = (*_RUN_KEYS, "run_id", "item_id", "epoch", "status", "error_type", "error", "started", "finished", "duration_s", "attempts")


def model_under_test(info: RunInfo) -> str:
    """The run's model under test: the ``agent`` / ``model`` / ``actor`` role, else the first one."""
    models = info.config.models
    for role in ("agent", "model", "actor"):
        if role in models:
            return str(models[role])
    return str(next(iter(models.values()), ""))


def run_fields(info: RunInfo | None) -> dict[str, Any]:
    """``benchmark``, ``model`` and ``method`` of a run (empty without one)."""
    if info is None:
        return {}
    return {"benchmark": info.benchmark, "model": model_under_test(info), "method": ",".join(info.config.methods)}


def sample_json(sample: SampleRecord, run: dict[str, Any] | None = None) -> dict[str, Any]:
    """One sample as the JSON object written per line, after the run's fields ``run``."""
    data = sample.model_dump(mode="json")
    fields = dict(run or {})
    # A sample that names its own method (runs of several methods) says which one it was.
    method = (data.get("input") or {}).get("method") if isinstance(data.get("input"), dict) else None
    if fields and isinstance(method, str):
        fields["method"] = method
    return {**fields, **data}


def _cell(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def flat_row(sample: SampleRecord, run: dict[str, Any] | None = None) -> dict[str, Any]:
    """One sample as a flat row (see the module docstring); ``run``: :func:`run_fields`."""
    data = sample_json(sample, run)
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
    run = run_fields(store.get_run(run_id))
    for sample in store.samples(run_id, status=status):
        stream.write(json.dumps(sample_json(sample, run), ensure_ascii=False) + "\n")
        count += 1
    return count


def write_csv(store: RunStore, run_id: str, stream: TextIO, *, status: str | None = None) -> int:
    """Write one CSV row per sample (a header first); two passes, so the columns are the union."""
    run = run_fields(store.get_run(run_id))
    columns = _columns(flat_row(s, run) for s in store.samples(run_id, status=status))
    writer = csv.DictWriter(stream, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    count = 0
    for sample in store.samples(run_id, status=status):
        writer.writerow(flat_row(sample, run))
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
    run = run_fields(store.get_run(run_id))
    rows = [flat_row(s, run) for s in store.samples(run_id, status=status)]
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
