"""The one driver: any :class:`~incanon.runs.benchmark.Benchmark`, dry run or evaluated.

```python
from incanon.runs.driver import RunSettings, estimate, evaluate

print(estimate(bench).calls)                                  # --dry-run: no model is called
done = await evaluate(bench, RunSettings(store=RunStore("runs.sqlite")))
report = done.report()                                        # the paper's tables of those runs
```

:func:`evaluate` builds every method's agent first (a bad method fails before anything is
stored), then runs one resumable run per method through :func:`incanon.runs.runner.run_items`:
finished samples are skipped, failed ones retried, and the scale options in force
(:func:`incanon.runs.run_defaults`: ``--executor``, ``--shard``, ``--max-cost``, ``--prices``)
apply to every run. When samples run on another executor's workers, each method's task is the
one the benchmark's ``remote`` rebuilds there.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

from incanon.errors import ConfigError
from incanon.runs.ambient import current_defaults
from incanon.runs.benchmark import Benchmark, epochs_of, templates_of
from incanon.runs.estimate import RunEstimate, estimate_run
from incanon.runs.executor import LocalExecutor, TaskArg
from incanon.runs.prices import Prices, PricesArg, as_prices
from incanon.runs.runner import run_items
from incanon.runs.shard import Shard
from incanon.runs.store import RunStore


@dataclass
class RunSettings:
    """How the driver runs each of a benchmark's runs (the scale options come from
    :func:`incanon.runs.run_defaults`)."""

    store: RunStore
    """The run store every run and sample is written to."""
    concurrency: int = 8
    """Items in flight in each run."""
    fresh: bool = False
    """Start new runs instead of resuming."""
    progress: bool = True
    """Show each run's progress on stderr."""
    item_timeout: float | None = None
    """Seconds one item may take before it is recorded as an error."""


@dataclass
class Evaluation:
    """What :func:`evaluate` did: one result per method, in order."""

    benchmark: Benchmark
    store: RunStore
    methods: list[str]
    results: list[Any] = field(default_factory=list)
    """A :class:`~incanon.runs.records.RunResult` per method (or what the benchmark's
    ``execute`` returned), in :attr:`methods` order."""

    @property
    def run_ids(self) -> list[str]:
        """The runs' ids, in method order."""
        return [result.run_id for result in self.results]

    def report(self) -> Any:
        """The benchmark's report of these runs (read back from the store)."""
        return self.benchmark.report(self.store, self.run_ids)


def runs_elsewhere() -> bool:
    """True when the executor in force (``--executor``) runs samples outside this process."""
    engine = current_defaults().executor
    return engine is not None and not isinstance(engine, LocalExecutor)


def task_for(bench: Benchmark, method: str, agent: Any) -> TaskArg:
    """The task of ``method``'s run: ``bench.score`` with its agent, or, when samples run on
    another executor's workers and the benchmark can rebuild it there, its ``remote`` task."""
    remote = getattr(bench, "remote", None)
    if remote is not None and runs_elsewhere():
        rebuilt = remote(method)
        if rebuilt is not None:
            return rebuilt
    return functools.partial(bench.score, agent)


async def run_method(bench: Benchmark, method: str, agent: Any, settings: RunSettings) -> Any:
    """One method's run: resumed when it exists, else started."""
    execute = getattr(bench, "execute", None)
    if execute is not None:
        return await execute(method, agent, settings)
    return await run_items(
        bench.items(), task_for(bench, method, agent), store=settings.store, config=bench.config(method),
        concurrency=settings.concurrency, epochs=epochs_of(bench), progress=settings.progress,
        fresh=settings.fresh, templates=templates_of(bench), item_timeout=settings.item_timeout,
    )


async def evaluate(bench: Benchmark, settings: RunSettings) -> Evaluation:
    """Every method of ``bench`` as its own resumable run, in order."""
    methods = list(bench.methods())
    if not methods:
        raise ConfigError(f"{bench.name}: no method to evaluate")
    agents = {method: bench.agent(method) for method in methods}  # all, before any run starts
    done = Evaluation(bench, settings.store, methods)
    for method in methods:
        done.results.append(await run_method(bench, method, agents[method], settings))
    return done


def estimate(bench: Benchmark, *, prices: PricesArg = None, shard: Shard | str | None = None) -> RunEstimate:
    """What evaluating ``bench`` would call, in tokens and USD, without calling a model: the
    benchmark's estimate lines over its items (this shard's) and epochs."""
    dry_run = getattr(bench, "dry_run", None)
    if dry_run is not None:
        defaults = current_defaults()
        return dry_run(prices=as_prices(prices) if prices is not None else (defaults.prices or Prices.builtin()),
                       shard=Shard.parse(shard) if shard is not None else defaults.shard)
    return estimate_run(bench.items(), list(bench.estimate()), epochs=epochs_of(bench), prices=prices, shard=shard)


__all__ = ["Evaluation", "RunSettings", "estimate", "evaluate", "run_method", "runs_elsewhere", "task_for"]
