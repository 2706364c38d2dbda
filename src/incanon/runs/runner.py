"""The runner: stream items through a task with bounded concurrency, one stored sample each.

Items are pulled lazily by a fixed pool of workers (a 100k-item dataset never becomes 100k
pending tasks); every finished sample is committed before its worker pulls the next one (the
samples finishing together share one transaction, :mod:`incanon.runs.commits`), so stopping at
any moment (Ctrl-C, kill -9, a crash) loses at most the samples in flight, and running the same
command again picks up where it stopped.

This module is the driver: it decides what runs (resume, shard, budget) and writes every result.
Where a sample runs is the executor's business (:mod:`incanon.runs.executor`: this event loop,
or Ray workers), and running one is :func:`incanon.runs.sample.run_sample`.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from dataclasses import dataclass, field
from typing import Any, AsyncIterable, AsyncIterator, Iterable, Mapping, Union

from incanon.errors import ConfigError, InputError
from incanon.models.types import Usage
from incanon.runs.ambient import current_defaults
from incanon.runs.budget import Budget
from incanon.runs.commits import GroupCommit
from incanon.runs.config import RunConfig
from incanon.runs.executor import Executor, TaskArg, create_executor
from incanon.runs.progress import RunProgress
from incanon.runs.prices import Prices, PricesArg, as_prices
from incanon.runs.records import RunItem, RunResult, input_hash
from incanon.outcome import FailedRun, note_failed_run
from incanon.runs.sample import Task, TaskResult, WorkUnit, describe_error
from incanon.runs.shard import Shard
from incanon.runs.store import RunStore

__all__ = ["Items", "Task", "TaskResult", "describe_error", "run", "run_items"]

Items = Union[Iterable[Any], AsyncIterable[Any]]

logger = logging.getLogger("incanon.runs")

_MAX_NOTES = 5  # per kind: a dataset that changed wholesale should not print 100k lines


@dataclass
class _Tally:
    ran: int = 0
    ok: int = 0
    failed: int = 0
    skipped: int = 0
    replaced: int = 0
    duplicates: int = 0
    usage: Usage = field(default_factory=Usage)
    notes: list[str] = field(default_factory=list)
    shown: dict[str, int] = field(default_factory=dict)

    def note(self, kind: str, message: str, reporter: RunProgress) -> None:
        count = self.shown.get(kind, 0) + 1
        self.shown[kind] = count
        if count <= _MAX_NOTES:
            self.notes.append(message)
            reporter.note(message)


def _coerce_item(raw: Any, position: int) -> RunItem:
    if isinstance(raw, RunItem):
        return raw
    if isinstance(raw, Mapping) and "id" in raw:
        return RunItem(id=str(raw["id"]), input=dict(raw.get("input") or {}))
    raise InputError(f"item #{position} is a {type(raw).__name__}, expected a RunItem or {{'id', 'input'}}")


async def _aiter(items: Items) -> AsyncIterator[Any]:
    if isinstance(items, AsyncIterable):
        async for item in items:
            yield item
    else:
        for item in items:
            yield item


async def _units(
    items: Items,
    epochs: int,
    states: dict[tuple[str, int], tuple[str, str]],
    retry_failed: bool,
    tally: _Tally,
    reporter: RunProgress,
    shard: Shard | None = None,
) -> AsyncIterator[WorkUnit]:
    """The samples that still need running, in input order, decided lazily."""
    seen: set[str] = set()
    position = 0
    async for raw in _aiter(items):
        item = _coerce_item(raw, position)
        position += 1
        if shard is not None and not shard.contains(item.id):
            continue
        if item.id in seen:
            tally.duplicates += 1
            tally.note("dup", f"item id {item.id!r} appears more than once; only the first is run", reporter)
            continue
        seen.add(item.id)
        problem = None
        try:
            digest: str | None = input_hash(item.input)
        except (TypeError, ValueError) as exc:
            digest, problem = None, f"item input is not JSON data: {exc}"
        for epoch in range(epochs):
            state = states.get((item.id, epoch))
            if state is not None:
                status, old_digest = state
                if digest is not None and old_digest != digest:
                    tally.replaced += 1
                    tally.note(
                        "changed",
                        f"item {item.id!r} (epoch {epoch}) changed since it was run; running it "
                        "again and replacing the stored sample",
                        reporter,
                    )
                elif status == "ok" or not retry_failed:
                    tally.skipped += 1
                    continue
            # The item itself when its epoch is already right: no copy per sample.
            unit_item = item if item.epoch == epoch else item.model_copy(update={"epoch": epoch})
            yield WorkUnit(unit_item, digest, problem)


def _sized_total(items: Items, epochs: int, shard: Shard | None) -> int | None:
    """Planned samples when the items can be counted without consuming them."""
    if not hasattr(items, "__len__"):
        return None
    if shard is None or shard.count == 1:
        return len(items) * epochs  # type: ignore[arg-type]
    ids: set[str] = set()
    for position, raw in enumerate(items):  # type: ignore[arg-type]
        try:
            ids.add(_coerce_item(raw, position).id)
        except InputError:
            continue  # reported when the stream reaches it
    return sum(1 for item_id in ids if shard.contains(item_id)) * epochs


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
    defaults = current_defaults()
    shard = Shard.parse(shard) if shard is not None else defaults.shard
    max_cost = max_cost if max_cost is not None else defaults.max_cost
    priced: Prices | None = as_prices(prices) if prices is not None else defaults.prices
    if priced is None and max_cost is not None:
        priced = Prices.builtin()
    budget = Budget(max_cost) if max_cost is not None else None
    owned = executor is None and defaults.executor is None or isinstance(executor, str)
    engine = create_executor(executor if executor is not None else defaults.executor)
    if shard is not None and shard.count > 1:
        config = shard.config(config)
    reporter = progress if isinstance(progress, RunProgress) else RunProgress(bool(progress))
    tally = _Tally()
    try:
        await engine.prepare(task, templates)
        info = store.create_or_resume(config, fresh=fresh)
        run_id = info.id
        for message in info.notes:
            tally.note("resume", message, reporter)
        if config.stripped:
            tally.note("secret", "not stored (look like credentials): " + ", ".join(config.stripped), reporter)
        if budget is not None:
            budget.spent = store.spent_cost(run_id)
        states = store.sample_states(run_id)
        total = _sized_total(items, epochs, shard)
        remaining = None
        if total is not None:
            store.set_total(run_id, total)
            finished = sum(1 for status, _ in states.values() if status == "ok" or not retry_failed)
            remaining = max(total - finished, 0)
    except BaseException:
        if owned:  # past this point the run's own cleanup shuts it down
            engine.shutdown()
        raise

    units = _units(items, epochs, states, retry_failed, tally, reporter, shard)
    pull_lock = asyncio.Lock()
    stream_error: list[BaseException] = []
    stopped: list[str] = []
    unpriced_seen: set[str] = set()
    committer = GroupCommit(store)

    async def next_unit() -> WorkUnit | None:
        # One worker at a time advances the (async) generator; a broken input stream stops
        # scheduling but lets in-flight samples finish, then surfaces after the pool drains.
        async with pull_lock:
            if stream_error or stopped:
                return None
            try:
                unit = await anext(units)
            except StopAsyncIteration:
                return None
            except Exception as exc:  # noqa: BLE001
                stream_error.append(exc)
                return None
            # Checked after pulling: a budget reached on the very last sample is a finished run.
            if budget is not None and budget.exhausted:
                stopped.append(f"budget reached: spent {budget.describe()}")
                return None
            return unit

    async def worker() -> None:
        while (unit := await next_unit()) is not None:
            attempt = await engine.run(unit)
            sample = attempt.sample
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise asyncio.CancelledError  # the task swallowed a cancel: do not record it
            if budget is not None:
                budget.add(sample.usage.cost)  # spent now, whether or not the commit follows
            await committer.commit(sample)  # done only once committed
            tally.ran += 1
            tally.usage = tally.usage + sample.usage
            for model in attempt.unpriced:
                if model not in unpriced_seen:
                    unpriced_seen.add(model)
                    tally.note("price", f"no price known for model {model!r}: its calls count as $0"
                               " (add it to a --prices file)", reporter)
            if sample.status == "ok":
                tally.ok += 1
            else:
                tally.failed += 1
            reporter.advance(sample.status == "ok")

    status = "crashed"
    t0 = time.perf_counter()
    try:
        await engine.start_run(task, run_id=run_id, timeout=item_timeout, prices=priced,
                               concurrency=concurrency, templates=templates)
        reporter.start(run_id, remaining)
        workers = [asyncio.create_task(worker()) for _ in range(concurrency)]
        try:
            await asyncio.gather(*workers)
        except BaseException:
            for w in workers:
                w.cancel()
            await asyncio.gather(*workers, return_exceptions=True)
            raise
        if stream_error:
            raise stream_error[0]
        # Every sample failed and none was done before: the run produced nothing (say so).
        all_failed = tally.failed and not tally.ok and not tally.skipped
        status = "stopped-budget" if stopped else ("failed" if all_failed else "finished")
    except (asyncio.CancelledError, KeyboardInterrupt):
        status = "interrupted"
        raise
    finally:
        elapsed = time.perf_counter() - t0
        rate = tally.ran / elapsed if elapsed > 0 else 0.0
        where = "" if engine.kind == "local" else f" on {engine.describe()}"
        reporter.stop(
            f"{run_id}: {status}; ran {tally.ran} ({tally.ok} ok, {tally.failed} failed){where}, "
            f"{tally.skipped} already done, {elapsed:,.1f}s, {rate:,.1f} it/s"
        )
        if stopped:
            tally.note("budget", f"{stopped[0]}; no new samples were started. Run again with a "
                       "higher --max-cost to continue where it stopped", reporter)
        await units.aclose()
        committer.flush()  # samples of workers cancelled while their batch waited
        used = dict(templates or {})
        try:
            used.update(await engine.end_run())
        finally:
            if owned:
                engine.shutdown()
        try:
            if used:
                store.add_templates(run_id, used)
            store.finish(run_id, status, spent=tally.usage, elapsed_s=elapsed)
        except sqlite3.Error as exc:
            # The store itself failing (disk full, locked) must not hide why the run stopped.
            logger.warning("could not record the end of run %s: %s", run_id, exc)
        if status == "failed":
            note_failed_run(FailedRun(run_id, tally.failed, next((s.error for s in store.samples(run_id, "error")), None)))
    return RunResult(
        run_id=run_id, status=status, resumed=info.resumed, ran=tally.ran, ok=tally.ok,
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
