"""Export a run's samples as JSON Lines, to a stream or atomically to a file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TextIO

from incanon.files import atomic_writer
from incanon.runs.records import SampleRecord
from incanon.runs.store import RunStore


def sample_json(sample: SampleRecord) -> dict[str, Any]:
    """One sample as the JSON object written per line."""
    return sample.model_dump(mode="json")


def write_jsonl(store: RunStore, run_id: str, stream: TextIO, *, status: str | None = None) -> int:
    """Write one JSON object per sample of ``run_id`` to ``stream``; returns the count."""
    count = 0
    for sample in store.samples(run_id, status=status):
        stream.write(json.dumps(sample_json(sample), ensure_ascii=False) + "\n")
        count += 1
    return count


def export_jsonl(store: RunStore, run_id: str, path: str | Path, *, status: str | None = None) -> int:
    """Write the run's samples to ``path`` atomically: readers see the old file or the whole new one."""
    with atomic_writer(path) as stream:
        return write_jsonl(store, run_id, stream, status=status)
