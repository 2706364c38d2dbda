"""Runs: the runner every benchmark uses, and the store that keeps every sample.

```python
from incanon.runs import RunConfig, RunItem, ItemOutcome, RunStore, run_items

config = RunConfig(benchmark="timechara", models={"agent": "openai:gpt-4o-mini"}, methods=["zero-shot"])
async def task(item: RunItem) -> ItemOutcome:
    ...
result = await run_items(items, task, store=RunStore(), config=config, concurrency=8)
```

Running the same configuration again resumes the same run (finished samples are skipped,
failed ones retried); ``fresh=True`` starts a new one.
"""

from incanon.runs.config import RunConfig, canonical_json, resume_notes
from incanon.runs.export import export_jsonl, sample_json, write_jsonl
from incanon.runs.progress import RunProgress
from incanon.runs.records import (
    ItemOutcome,
    RunInfo,
    RunItem,
    RunResult,
    RunSummary,
    SampleRecord,
    ScoreStat,
    input_hash,
)
from incanon.runs.runner import Task, describe_error, run, run_items
from incanon.runs.secrets import is_secret_key, redact, strip_secrets
from incanon.runs.stats import mean_sem
from incanon.runs.store import RunStore

__all__ = [
    "ItemOutcome",
    "RunConfig",
    "RunInfo",
    "RunItem",
    "RunProgress",
    "RunResult",
    "RunStore",
    "RunSummary",
    "SampleRecord",
    "ScoreStat",
    "Task",
    "canonical_json",
    "describe_error",
    "export_jsonl",
    "input_hash",
    "is_secret_key",
    "mean_sem",
    "redact",
    "resume_notes",
    "run",
    "run_items",
    "sample_json",
    "strip_secrets",
    "write_jsonl",
]
