"""Running one sample: the task on one item, every exception turned into an error record.

This is all an executor's worker needs (a Ray actor imports only this module), so it knows
nothing about stores, progress or scheduling.
"""

from __future__ import annotations

import asyncio
import inspect
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Mapping, Union

from incanon.errors import IncanonError, InputError, NoSpaceError
from incanon.models.usage import metered
from incanon.runs.config import utcnow
from incanon.runs.prices import Prices
from incanon.runs.records import ItemOutcome, RunItem, SampleRecord, to_jsonable
from incanon.secrets import redact

TaskResult = Union[ItemOutcome, Mapping[str, Any]]
Task = Callable[[RunItem], Union[Awaitable[TaskResult], TaskResult]]
"""``task(item)`` → :class:`ItemOutcome` (or a mapping of its fields); async or plain."""

_MAX_MESSAGE = 2000
_MAX_TRACEBACK = 8000


@dataclass
class WorkUnit:
    """One sample to run: the item (with its epoch set) and its input hash."""

    item: RunItem
    digest: str | None
    problem: str | None = None
    """Why the item cannot be run (bad input); recorded as its error without calling the task."""


@dataclass
class Attempt:
    """What running one sample gave: the record to store, and models no price was found for."""

    sample: SampleRecord
    unpriced: list[str] = field(default_factory=list)


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


async def run_sample(
    unit: WorkUnit,
    task: Task,
    run_id: str,
    timeout: float | None,
    prices: Prices | None = None,
) -> Attempt:
    """Run the task on one sample; every exception becomes an error record, never a crash.

    Usage is metered around the task; with ``prices`` each model's tokens are priced here (a
    price in the table wins over a cost the model wrapper computed itself).
    """
    item = unit.item
    started, t0 = utcnow(), time.perf_counter()
    outputs = scores = extra = None
    error_type = error = tb = None
    with metered() as meter:
        try:
            if unit.problem is not None:
                raise InputError(unit.problem)
            result = task(item)
            if inspect.isawaitable(result):
                if timeout is not None:
                    async with asyncio.timeout(timeout):
                        result = await result
                else:
                    result = await result
            outcome = result if isinstance(result, ItemOutcome) else ItemOutcome.model_validate(result)
            # Convert here, inside the try: output that JSON cannot hold is this item's error.
            outputs, extra = to_jsonable(outcome.outputs), to_jsonable(outcome.extra)
            scores = outcome.scores
        except NoSpaceError:
            raise  # a full disk fails every later item and the store too: stop, keep what finished
        except Exception as exc:  # noqa: BLE001 - one failing item must never end the run
            error_type, error, tb = describe_error(exc, timeout)
            outputs = scores = extra = None
    usage, unpriced = meter.total, []
    if prices is not None:
        usage, unpriced = prices.price_meter(meter.by_model)
    failed = error_type is not None
    sample = SampleRecord(
        run_id=run_id, item_id=item.id, epoch=item.epoch, input_hash=unit.digest or "-",
        input=item.input if unit.digest is not None else {},
        outputs=outputs, scores=scores, extra=extra or None, usage=usage,
        started=started, finished=utcnow(), duration_s=time.perf_counter() - t0,
        status="error" if failed else "ok", error_type=error_type, error=error, traceback=tb,
    )
    return Attempt(sample, unpriced)
