"""Runs: the driver and runner every benchmark uses, and the store that keeps every sample.

A benchmark is a :class:`Benchmark` (items, methods, an agent per method, the scoring of one
item, the run's config, an estimate, a report); :func:`evaluate_benchmark` runs any of them,
one resumable run per method, and :func:`estimate_benchmark` is its dry run (docs/benchmarks.md).
Underneath, one run is :func:`run_items`:

```python
from incanon.runs import RunConfig, RunItem, ItemOutcome, RunStore, run_items

config = RunConfig(benchmark="timechara", models={"agent": "openai:gpt-4o-mini"}, methods=["zero-shot"])
async def task(item: RunItem) -> ItemOutcome:
    ...
result = await run_items(items, task, store=RunStore(), config=config, concurrency=8)
```

Running the same configuration again resumes the same run (finished samples are skipped,
failed ones retried); ``fresh=True`` starts a new one.

At scale: ``executor="ray"`` runs samples on a Ray cluster (results still written here),
``shard="2/4"`` runs one deterministic quarter of the items as its own run (``merge_stores``
joins shard stores), ``max_cost=`` stops a run cleanly at a budget, ``estimate_run`` predicts
calls, tokens and cost without calling a model. ``run_defaults(...)`` sets these for every
``run_items`` call inside a block (how the CLIs' ``--executor/--shard/--max-cost`` apply).
"""

from typing import TYPE_CHECKING

from incanon.lazyimport import lazy_exports

# Imported on first use (incanon.lazyimport): `import incanon.runs` stays light.
if TYPE_CHECKING:
    from incanon.runs.ambient import RunDefaults, current_defaults, run_defaults
    from incanon.runs.benchmark import Benchmark
    from incanon.runs.budget import Budget
    from incanon.runs.config import RunConfig, canonical_json, resume_notes
    from incanon.runs.estimate import (
        CallPattern,
        EstimateLine,
        RunEstimate,
        call_pattern_of,
        estimate_run,
        register_call_pattern,
    )
    from incanon.runs.driver import Evaluation, RunSettings
    from incanon.runs.driver import estimate as estimate_benchmark
    from incanon.runs.driver import evaluate as evaluate_benchmark
    from incanon.runs.executor import (
        Executor,
        ExecutorKind,
        LocalExecutor,
        PerWorker,
        create_executor,
        executor_kinds,
        per_worker,
        register_executor,
    )
    from incanon.runs.merge import MergeReport, merge_stores
    from incanon.runs.prices import BUILTIN_PRICES, EXAMPLE_PRICES_DATE, Price, Prices, load_prices
    from incanon.runs.export import FORMATS, export_jsonl, export_samples, flat_row, sample_json, write_csv, write_jsonl
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
    from incanon.runs.sample import Attempt, WorkUnit
    from incanon.runs.shard import Shard, shard_index
    from incanon.secrets import is_secret_key, redact, strip_secrets
    from incanon.runs.stats import mean_sem
    from incanon.runs.store import RunStore

__all__ = [
    "BUILTIN_PRICES",
    "EXAMPLE_PRICES_DATE",
    "Attempt",
    "Benchmark",
    "Budget",
    "CallPattern",
    "EstimateLine",
    "Evaluation",
    "Executor",
    "ExecutorKind",
    "LocalExecutor",
    "MergeReport",
    "PerWorker",
    "Price",
    "Prices",
    "RunDefaults",
    "RunEstimate",
    "Shard",
    "WorkUnit",
    "call_pattern_of",
    "create_executor",
    "current_defaults",
    "estimate_run",
    "executor_kinds",
    "load_prices",
    "merge_stores",
    "per_worker",
    "register_call_pattern",
    "register_executor",
    "run_defaults",
    "shard_index",
    "ItemOutcome",
    "RunConfig",
    "RunInfo",
    "RunItem",
    "RunProgress",
    "RunResult",
    "RunSettings",
    "RunStore",
    "RunSummary",
    "SampleRecord",
    "ScoreStat",
    "Task",
    "canonical_json",
    "describe_error",
    "estimate_benchmark",
    "evaluate_benchmark",
    "export_jsonl",
    "export_samples",
    "flat_row",
    "write_csv",
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

__getattr__, __dir__ = lazy_exports(__name__, __file__)
