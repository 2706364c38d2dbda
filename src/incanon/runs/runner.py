"""The runner: stream items through a task with bounded concurrency, one stored sample each.

Items are pulled lazily by a fixed pool of workers (a 100k-item dataset never becomes 100k
pending tasks); every finished sample is committed before the next is pulled, so stopping at
any moment (Ctrl-C, kill -9, a crash) loses at most the samples in flight, and running the same
command again picks up where it stopped.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import sqlite3
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, AsyncIterable, AsyncIterator, Awaitable, Callable, Iterable, Mapping, Union

from incanon.errors import ConfigError, IncanonError, InputError
from incanon.models.types import Usage
from incanon.models.usage import metered
from incanon.runs.config import RunConfig, utcnow
from incanon.runs.progress import RunProgress
from incanon.runs.records import ItemOutcome, RunItem, RunResult, SampleRecord, input_hash, to_jsonable
from incanon.runs.secrets import redact
from incanon.runs.store import RunStore

TaskResult = Union[ItemOutcome, Mapping[str, Any]]
Task = Callable[[RunItem], Union[Awaitable[TaskResult], TaskResult]]
"""``task(item)`` → :class:`ItemOutcome` (or a mapping of its fields); async or plain."""
Items = Union[Iterable[Any], AsyncIterable[Any]]

logger = logging.getLogger("incanon.runs")

_MAX_NOTES = 5  # per kind: a dataset that changed wholesale should not print 100k lines
_MAX_MESSAGE = 2000
_MAX_TRACEBACK = 8000


@dataclass
class _Unit:
    item: RunItem
    digest: str | None
    problem: str | None = None  # why the item cannot be run (bad input), recorded as its error


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


def describe_error(exc: BaseException, timeout: float | None = None) -> tuple[str, str, str | None]:
    """(type name, one-line message, short traceback or None) of a failed item, redacted.

    User errors (``IncanonError``) keep their own message and need no traceback; anything else
    is ``Type: message`` with a traceback, since it is probably a bug.
    """
    name = type(exc).__name__
    if isinstance(exc, IncanonError):
        return name, redact(str(exc))[:_MAX_MESSAGE], None
    if isinstance(exc, TimeoutError) and timeout is not None and not str(exc):
        return name, f"{name}: no result within {timeout:g}s", None
    text = str(exc).strip()
    message = f"{name}: {text}" if text else name
    frames = "".join(traceback.format_exception(exc, limit=-15))
    return name, redact(message)[:_MAX_MESSAGE], redact(frames)[-_MAX_TRACEBACK:]


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
) -> AsyncIterator[_Unit]:
    """The samples that still need running, in input order, decided lazily."""
    seen: set[str] = set()
    position = 0
    async for raw in _aiter(items):
        item = _coerce_item(raw, position)
        position += 1
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
            yield _Unit(item.model_copy(update={"epoch": epoch}), digest, problem)


async def _run_one(unit: _Unit, task: Task, run_id: str, timeout: float | None) -> SampleRecord:
    """Run the task on one sample; every exception becomes an error record, never a crash."""
    item = unit.item
    started, t0 = utcnow(), time.perf_counter()
    outputs = scores = extra = None
    error_type = error = tb = None
    with metered() as meter:
        try:
            if unit.problem is not None:
                raise InputError(unit.problem)
            async with asyncio.timeout(timeout):
                result = task(item)
                if inspect.isawaitable(result):
                    result = await result
            outcome = result if isinstance(result, ItemOutcome) else ItemOutcome.model_validate(result)
            # Convert here, inside the try: output that JSON cannot hold is this item's error.
            outputs, extra = to_jsonable(outcome.outputs), to_jsonable(outcome.extra)
            scores = outcome.scores
        except Exception as exc:  # noqa: BLE001 - one failing item must never end the run
            error_type, error, tb = describe_error(exc, timeout)
            outputs = scores = extra = None
    failed = error_type is not None
    return SampleRecord(
        run_id=run_id, item_id=item.id, epoch=item.epoch, input_hash=unit.digest or "-",
        input=item.input if unit.digest is not None else {},
        outputs=outputs, scores=scores, extra=extra or None, usage=meter.total,
        started=started, finished=utcnow(), duration_s=time.perf_counter() - t0,
        status="error" if failed else "ok", error_type=error_type, error=error, traceback=tb,
    )


async def run_items(
    items: Items,
    task: Task,
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
) -> RunResult:
    """Run ``task`` on every item × epoch not already done, storing one sample each.

    ``items`` is any iterable or async iterable of :class:`RunItem` (or ``{"id", "input"}``
    mappings), consumed lazily. The task gets the item with its ``epoch`` set. Samples already
    ``ok`` in this run with the same input are skipped; failed ones are retried unless
    ``retry_failed=False``; ones whose input changed are run again and replaced. ``fresh=True``
    starts a new run instead of resuming. ``templates`` (e.g. ``PromptLibrary.used``) is read at
    the end and merged into the stored config.

    Cancellation (Ctrl-C under :func:`run`) cancels in-flight samples without recording them,
    marks the run ``interrupted`` and re-raises; the next call resumes it.
    """
    if concurrency < 1:
        raise ConfigError(f"concurrency must be at least 1, got {concurrency}")
    if epochs < 1:
        raise ConfigError(f"epochs must be at least 1, got {epochs}")
    reporter = progress if isinstance(progress, RunProgress) else RunProgress(bool(progress))
    info = store.create_or_resume(config, fresh=fresh)
    run_id = info.id
    tally = _Tally()
    for message in info.notes:
        tally.note("resume", message, reporter)
    if config.stripped:
        tally.note("secret", "not stored (look like credentials): " + ", ".join(config.stripped), reporter)

    states = store.sample_states(run_id)
    total = len(items) * epochs if hasattr(items, "__len__") else None  # type: ignore[arg-type]
    remaining = None
    if total is not None:
        store.set_total(run_id, total)
        finished = sum(1 for status, _ in states.values() if status == "ok" or not retry_failed)
        remaining = max(total - finished, 0)

    units = _units(items, epochs, states, retry_failed, tally, reporter)
    pull_lock = asyncio.Lock()
    stream_error: list[BaseException] = []

    async def next_unit() -> _Unit | None:
        # One worker at a time advances the (async) generator; a broken input stream stops
        # scheduling but lets in-flight samples finish, then surfaces after the pool drains.
        async with pull_lock:
            if stream_error:
                return None
            try:
                return await anext(units)
            except StopAsyncIteration:
                return None
            except Exception as exc:  # noqa: BLE001
                stream_error.append(exc)
                return None

    async def worker() -> None:
        while (unit := await next_unit()) is not None:
            sample = await _run_one(unit, task, run_id, item_timeout)
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise asyncio.CancelledError  # the task swallowed a cancel: do not record it
            store.record(sample)
            tally.ran += 1
            tally.usage = tally.usage + sample.usage
            if sample.status == "ok":
                tally.ok += 1
            else:
                tally.failed += 1
            reporter.advance(sample.status == "ok")

    status = "crashed"
    t0 = time.perf_counter()
    reporter.start(run_id, remaining)
    workers = [asyncio.create_task(worker()) for _ in range(concurrency)]
    try:
        try:
            await asyncio.gather(*workers)
        except BaseException:
            for w in workers:
                w.cancel()
            await asyncio.gather(*workers, return_exceptions=True)
            raise
        if stream_error:
            raise stream_error[0]
        status = "finished"
    except (asyncio.CancelledError, KeyboardInterrupt):
        status = "interrupted"
        raise
    finally:
        elapsed = time.perf_counter() - t0
        rate = tally.ran / elapsed if elapsed > 0 else 0.0
        reporter.stop(
            f"{run_id}: {status}; ran {tally.ran} ({tally.ok} ok, {tally.failed} failed), "
            f"{tally.skipped} already done, {elapsed:,.1f}s, {rate:,.1f} it/s"
        )
        await units.aclose()
        try:
            if templates:
                store.add_templates(run_id, dict(templates))
            store.finish(run_id, status, spent=tally.usage, elapsed_s=elapsed)
        except sqlite3.Error as exc:
            # The store itself failing (disk full, locked) must not hide why the run stopped.
            logger.warning("could not record the end of run %s: %s", run_id, exc)
    return RunResult(
        run_id=run_id, status="finished", resumed=info.resumed, ran=tally.ran, ok=tally.ok,
        failed=tally.failed, skipped=tally.skipped, replaced=tally.replaced,
        duplicates=tally.duplicates, usage=tally.usage, elapsed_s=elapsed, notes=tally.notes,
    )


def run(items: Items, task: Task, **kwargs: Any) -> RunResult:
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
