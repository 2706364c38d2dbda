"""The samples table's row codec: a record written as a row reads back as the same record."""

from __future__ import annotations

from datetime import datetime, timezone

from incanon.models.types import Usage
from incanon.runs.records import SampleRecord
from incanon.runs.sample_rows import SAMPLE_COLUMNS, row_sample, sample_row


def test_a_sample_round_trips_through_its_row() -> None:
    when = datetime(2026, 11, 26, 12, 0, tzinfo=timezone.utc)
    sample = SampleRecord(run_id="r", item_id="i1", epoch=2, input_hash="h", input={"q": "Who rang the bell?"},
                          outputs={"answer": "Tobiah"}, scores={"acc": 1.0}, extra=None,
                          usage=Usage(prompt_tokens=3, completion_tokens=1), started=when, finished=when,
                          duration_s=0.5, status="ok")
    row = sample_row(sample)
    assert len(row) == len(SAMPLE_COLUMNS) and row[SAMPLE_COLUMNS.index("extra")] is None
    back = row_sample(row)
    assert back.model_dump(exclude={"started", "finished"}) == sample.model_dump(exclude={"started", "finished"})
    assert back.started == when and back.attempts == 1

