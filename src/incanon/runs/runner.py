"""The runner: stream items through a task with bounded concurrency, one stored sample each.

Items are pulled lazily by a fixed pool of workers (a 100k-item dataset never becomes 100k
pending tasks); every finished sample is committed before its worker pulls the next one (the
samples finishing together share one transaction, :mod:`incanon.runs.commits`), so stopping at
any moment (Ctrl-C, kill -9, a crash) loses at most the samples in flight, and running the same
command again picks up where it stopped.

This module runs one run: it decides what runs (resume, shard, budget) and writes every result.
Which items and which task make a benchmark's runs is :mod:`incanon.runs.driver`'s business;
where a sample runs is the executor's (:mod:`incanon.runs.executor`: this event loop, or Ray
workers), and running one is :func:`incanon.runs.sample.run_sample`. The samples still to run
are chosen by :mod:`incanon.runs.units`.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from dataclasses import dataclass, field
from typing import Any, Mapping

from incanon.errors import ConfigError
from incanon.outcome import FailedRun, note_failed_run
from incanon.runs.ambient import current_defaults
from incanon.runs.budget import Budget
from incanon.runs.commits import GroupCommit
from incanon.runs.config import RunConfig
from incanon.runs.executor import Executor, TaskArg, create_executor
from incanon.runs.prices import Prices, PricesArg, as_prices
from incanon.runs.progress import RunProgress
from incanon.runs.records import RunInfo, RunResult
from incanon.runs.sample import Attempt, Task, TaskResult, WorkUnit, describe_error
from incanon.runs.shard import Shard
from incanon.runs.store import RunStore
from incanon.runs.units import Items, Tally, sized_total, work_units

__all__ = ["Items", "Task", "TaskResult", "describe_error", "run", "run_items"]

logger = logging.getLogger("incanon.runs")


@dataclass
class _Scale:
    """The scale and cost options of one call, each from its argument or the ambient default."""

    engine: Executor
    owned: bool
    """True when this call created the executor (so it shuts it down)."""
    shard: Shard | None
    prices: Prices | None
    budget: Budget | None

    @classmethod
    def resolve(cls, executor: Executor | str | None, shard: Shard | str | None, max_cost: float | None,
                prices: PricesArg) -> "_Scale":
        defaults = current_defaults()
        chosen = Shard.parse(shard) if shard is not None else defaults.shard
        max_cost = max_cost if max_cost is not None else defaults.max_cost
        priced: Prices | None = as_prices(prices) if prices is not None else defaults.prices
        if priced is None and max_cost is not None:
            priced = Prices.builtin()
        owned = executor is None and defaults.executor is None or isinstance(executor, str)
        engine = create_executor(executor if executor is not None else defaults.executor)
        return cls(engine, owned, chosen, priced, Budget(max_cost) if max_cost is not None else None)

    def config(self, config: RunConfig) -> RunConfig:
        """``config`` naming this shard's run (the shard is in its id)."""
        return self.shard.config(config) if self.shard is not None and self.shard.count > 1 else config


@dataclass
class _Opened:
    """A run opened (created or resumed) in the store, with what is already done in it."""

    info: RunInfo
    states: dict[tuple[str, int], tuple[str, str]]
    remaining: int | None


async def _open(items: Items, task: TaskArg, store: RunStore, config: RunConfig, scale: _Scale, *,
                epochs: int, fresh: bool, retry_failed: bool, templates: Mapping[str, str] | None,
                tally: Tally, reporter: RunProgress) -> _Opened:
    """Check the executor can run ``task``, then create or resume the run; a failure here
    shuts down an executor this call created (past this point the run's own cleanup does)."""
    try:
        await scale.engine.prepare(task, templates)
        info = store.create_or_resume(config, fresh=fresh)
        for message in info.notes:
            tally.note("resume", message, reporter)
        if config.stripped:
            tally.note("secret", "not stored (look like credentials): " + ", ".join(config.stripped), reporter)
        if scale.budget is not None:
            scale.budget.spent = store.spent_cost(info.id)
        states = store.sample_states(info.id)
        total = sized_total(items, epochs, scale.shard)
        remaining = None
        if total is not None:
            store.set_total(info.id, total)
            finished = sum(1 for status, _ in states.values() if status == "ok" or not retry_failed)
            remaining = max(total - finished, 0)
        return _Opened(info, states, remaining)
    except BaseException:
        if scale.owned:
            scale.engine.shutdown()
        raise


@dataclass
class _Pool:
    """The workers of one run: each pulls the next unit, runs it, commits it, counts it."""

    units: Any
    """The async iterator of :class:`WorkUnit` still to run (:func:`work_units`)."""
    engine: Executor
    budget: Budget | None
    committer: GroupCommit
    tally: Tally
    reporter: RunProgress
    stream_error: list[BaseException] = field(default_factory=list)
    stopped: list[str] = field(default_factory=list)
    unpriced_seen: set[str] = field(default_factory=set)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    async def next_unit(self) -> WorkUnit | None:
        # One worker at a time advances the (async) generator; a broken input stream stops
        # scheduling but lets in-flight samples finish, then surfaces after the pool drains.
        async with self.lock:
            if self.stream_error or self.stopped:
                return None
            try:
                unit = await anext(self.units)
            except StopAsyncIteration:
                return None
            except Exception as exc:  # noqa: BLE001
                self.stream_error.append(exc)
                return None
            # Checked after pulling: a budget reached on the very last sample is a finished run.
            if self.budget is not None and self.budget.exhausted:
                self.stopped.append(f"budget reached: spent {self.budget.describe()}")
                return None
            return unit

    async def worker(self) -> None:
        while (unit := await self.next_unit()) is not None:
            attempt = await self.engine.run(unit)
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise asyncio.CancelledError  # the task swallowed a cancel: do not record it
            if self.budget is not None:
                self.budget.add(attempt.sample.usage.cost)  # spent now, whether or not the commit follows
            await self.committer.commit(attempt.sample)  # done only once committed
            self.count(attempt)

    def count(self, attempt: Attempt) -> None:
        """Tally one committed sample and report it."""
        sample = attempt.sample
        self.tally.ran += 1
        self.tally.usage = self.tally.usage + sample.usage
        for model in attempt.unpriced:
            if model not in self.unpriced_seen:
                self.unpriced_seen.add(model)
                self.tally.note("price", f"no price known for model {model!r}: its calls count as $0"
                                " (add it to a --prices file)", self.reporter)
        if sample.status == "ok":
            self.tally.ok += 1
        else:
            self.tally.failed += 1
        self.reporter.advance(sample.status == "ok")

    async def drain(self, concurrency: int) -> str:
        """Run ``concurrency`` workers until no unit is left; the run's final status."""
        workers = [asyncio.create_task(self.worker()) for _ in range(concurrency)]
        try:
            await asyncio.gather(*workers)
        except BaseException:
            for w in workers:
                w.cancel()
            await asyncio.gather(*workers, return_exceptions=True)
            raise
        if self.stream_error:
            raise self.stream_error[0]
        # Every sample failed and none was done before: the run produced nothing (say so).
        all_failed = self.tally.failed and not self.tally.ok and not self.tally.skipped
        return "stopped-budget" if self.stopped else ("failed" if all_failed else "finished")


async def _close(pool: _Pool, scale: _Scale, store: RunStore, run_id: str, status: str, elapsed: float,
                 templates: Mapping[str, str] | None) -> None:
    """Say how the run ended, release the executor and record the end in the store."""
    tally = pool.tally
    rate = tally.ran / elapsed if elapsed > 0 else 0.0
    where = "" if scale.engine.kind == "local" else f" on {scale.engine.describe()}"
    pool.reporter.stop(
        f"{run_id}: {status}; ran {tally.ran} ({tally.ok} ok, {tally.failed} failed){where}, "
        f"{tally.skipped} already done, {elapsed:,.1f}s, {rate:,.1f} it/s"
    )
    if pool.stopped:
        tally.note("budget", f"{pool.stopped[0]}; no new samples were started. Run again with a "
                   "higher --max-cost to continue where it stopped", pool.reporter)
    await pool.units.aclose()
    pool.committer.flush()  # samples of workers cancelled while their batch waited
    used = dict(templates or {})
    try:
        used.update(await scale.engine.end_run())
    finally:
        if scale.owned:
            scale.engine.shutdown()
    try:
        if used:
            store.add_templates(run_id, used)
        store.finish(run_id, status, spent=tally.usage, elapsed_s=elapsed)
    except sqlite3.Error as exc:
        # The store itself failing (disk full, locked) must not hide why the run stopped.
        logger.warning("could not record the end of run %s: %s", run_id, exc)
    if status == "failed":
        first = next((s.error for s in store.samples(run_id, "error")), None)
        note_failed_run(FailedRun(run_id, tally.failed, first))


async def run_items(
    items: Items,
    task: TaskArg,
    *,
    store: RunStore,
    config: RunConfig,
    concurrency: int = 8,
    epochs: int = 1,
    progress: bool | RunProgress = True,
    retry_failed: bool = True,
    fresh: bool = False,
    item_timeout: float | None = None,
    templates: Mapping[str, str] | None = None,
    executor: Executor | str | None = None,
    shard: Shard | str | None = None,
    max_cost: float | None = None,
    prices: PricesArg = None,
) -> RunResult:
    """Run ``task`` on every item × epoch not already done, storing one sample each.

    ``items`` is any iterable or async iterable of :class:`RunItem` (or ``{"id", "input"}``
    mappings), consumed lazily. The task gets the item with its ``epoch`` set. Samples already
    ``ok`` in this run with the same input are skipped; failed ones are retried unless
    ``retry_failed=False``; ones whose input changed are run again and replaced. ``fresh=True``
    starts a new run instead of resuming. ``templates`` (e.g. ``PromptLibrary.used``) is read at
    the end and merged into the stored config.

    Scale and cost (each defaults to what :func:`incanon.runs.run_defaults` set, else off):
    ``executor`` runs the samples elsewhere (``"local"``, ``"ray"`` or an :class:`Executor`;
    results are still written here, by this process); ``shard`` (``"i/n"``) runs only the items
    whose id hashes to that shard, as a run of its own (the shard is in its id); ``max_cost``
    (USD, over all sessions of the run) stops starting samples once reached and marks the run
    ``stopped-budget``; ``prices`` (a :class:`Prices`, mapping or price file) prices each
    sample's tokens, the built-in table being used when only ``max_cost`` is given.

    Cancellation (Ctrl-C under :func:`run`) cancels in-flight samples without recording them,
    marks the run ``interrupted`` and re-raises; the next call resumes it.
    """
    if concurrency < 1:
        raise ConfigError(f"concurrency must be at least 1, got {concurrency}")
    if epochs < 1:
        raise ConfigError(f"epochs must be at least 1, got {epochs}")
    scale = _Scale.resolve(executor, shard, max_cost, prices)
    config = scale.config(config)
    reporter = progress if isinstance(progress, RunProgress) else RunProgress(bool(progress))
    tally = Tally()
    opened = await _open(items, task, store, config, scale, epochs=epochs, fresh=fresh, retry_failed=retry_failed,
                         templates=templates, tally=tally, reporter=reporter)
    run_id = opened.info.id
    units = work_units(items, epochs, opened.states, retry_failed, tally, reporter, scale.shard)
    pool = _Pool(units, scale.engine, scale.budget, GroupCommit(store), tally, reporter)
    status = "crashed"
    t0 = time.perf_counter()
    try:
        await scale.engine.start_run(task, run_id=run_id, timeout=item_timeout, prices=scale.prices,
                                     concurrency=concurrency, templates=templates)
        reporter.start(run_id, opened.remaining)
        status = await pool.drain(concurrency)
    except (asyncio.CancelledError, KeyboardInterrupt):
        status = "interrupted"
        raise
    finally:
        elapsed = time.perf_counter() - t0
        await _close(pool, scale, store, run_id, status, elapsed, templates)
    return RunResult(
        run_id=run_id, status=status, resumed=opened.info.resumed, ran=tally.ran, ok=tally.ok,
        failed=tally.failed, skipped=tally.skipped, replaced=tally.replaced,
        duplicates=tally.duplicates, usage=tally.usage, elapsed_s=elapsed, notes=tally.notes,
    )


def run(items: Items, task: TaskArg, **kwargs: Any) -> RunResult:
    """Synchronous :func:`run_items` (same arguments); Ctrl-C leaves the run resumable."""
    try:
        asyncio.get_running_loop()
        in_loop = True
    except RuntimeError:
        in_loop = False
    if in_loop:
        raise RuntimeError("run() was called inside a running event loop; use `await run_items(...)`")
    # Outside the except block, so item tracebacks do not carry "no running event loop".
    return asyncio.run(run_items(items, task, **kwargs))
