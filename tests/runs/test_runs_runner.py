"""The runner: outputs, scores, usage, errors, resume, concurrency, streaming, progress."""

from __future__ import annotations

import asyncio
import io
import math
from collections import Counter

import pytest
from rich.console import Console

from runs_testutil import make_items
from incanon.errors import ConfigError, NotFoundError
from incanon.models.types import Usage
from incanon.models.usage import record_usage
from incanon.runs import ItemOutcome, RunConfig, RunItem, RunProgress, run, run_items


async def scored(item: RunItem) -> ItemOutcome:
    record_usage("m", Usage(calls=1, prompt_tokens=3))
    await asyncio.sleep(0)
    record_usage("judge", Usage(calls=1, prompt_tokens=3, completion_tokens=2))
    x = item.input["x"]
    return ItemOutcome(outputs={"double": 2 * x}, scores={"even": float(x % 2 == 0), "x": x})


async def test_records_outputs_scores_and_usage(store, config):
    result = await run_items(make_items(20), scored, store=store, config=config, progress=False)
    assert (result.ran, result.ok, result.failed, result.status) == (20, 20, 0, "finished")
    assert result.usage == Usage(calls=40, prompt_tokens=120, completion_tokens=40)
    samples = {s.item_id: s for s in store.samples(result.run_id)}
    assert len(samples) == 20
    s7 = samples["i0007"]
    assert s7.outputs == {"double": 14} and s7.scores == {"even": 0.0, "x": 7.0}
    assert s7.usage == Usage(calls=2, prompt_tokens=6, completion_tokens=2)
    assert s7.status == "ok" and s7.duration_s >= 0 and s7.started <= s7.finished
    summary = store.summary(result.run_id)
    assert {x.name: x.mean for x in summary.scores} == {"even": 0.5, "x": 9.5}
    assert summary.usage == result.usage and summary.total == 20
    assert store.get_run(result.run_id).status == "finished"


async def test_failing_item_does_not_stop_run_and_is_retried(store, config):
    calls: Counter[str] = Counter()

    async def flaky(item: RunItem) -> ItemOutcome:
        calls[item.id] += 1
        if item.input["x"] % 5 == 0 and calls[item.id] == 1:
            raise RuntimeError("backend hiccup")
        return ItemOutcome(outputs={"ok": True}, scores={"s": 1})

    first = await run_items(make_items(20), flaky, store=store, config=config, progress=False)
    assert (first.ok, first.failed) == (16, 4)
    errors = list(store.samples(first.run_id, status="error"))
    assert {e.item_id for e in errors} == {"i0000", "i0005", "i0010", "i0015"}
    assert errors[0].error == "RuntimeError: backend hiccup" and errors[0].error_type == "RuntimeError"
    assert "backend hiccup" in errors[0].traceback

    second = await run_items(make_items(20), flaky, store=store, config=config, progress=False)
    assert second.resumed and (second.ran, second.ok, second.skipped) == (4, 4, 16)
    assert all(n == 2 for item, n in calls.items() if item in {"i0000", "i0005"})
    assert sum(calls.values()) == 24
    assert store.summary(first.run_id).failed == 0
    retried = {s.item_id: s.attempts for s in store.samples(first.run_id)}
    assert retried["i0005"] == 2 and retried["i0001"] == 1


async def test_retry_failed_false_keeps_errors(store, config):
    async def boom(item: RunItem) -> ItemOutcome:
        raise ValueError("no")

    await run_items(make_items(3), boom, store=store, config=config, progress=False)
    again = await run_items(make_items(3), boom, store=store, config=config, progress=False, retry_failed=False)
    assert (again.ran, again.skipped) == (0, 3)


async def test_a_run_whose_every_sample_failed_is_recorded_as_failed(store, config):
    from incanon import outcome

    async def boom(item: RunItem) -> ItemOutcome:
        raise ValueError("no server")

    outcome.reset()
    result = await run_items(make_items(3), boom, store=store, config=config, progress=False)
    assert result.status == "failed" and store.get_run(result.run_id).status == "failed"
    (noted,) = outcome.failed_runs()
    assert noted.run_id == result.run_id and noted.failed == 3 and "no server" in (noted.first_error or "")
    assert "recorded as failed" in str(outcome.failure_error())

    async def fine(item: RunItem) -> ItemOutcome:
        return ItemOutcome(outputs={"ok": True}, scores={"s": 1})

    outcome.reset()
    again = await run_items(make_items(3), fine, store=store, config=config, progress=False)
    assert again.status == "finished" and outcome.failure_error() is None


async def test_resume_skips_finished_items(store, config):
    executed: Counter[str] = Counter()

    async def task(item: RunItem) -> ItemOutcome:
        executed[item.id] += 1
        return ItemOutcome(outputs={"x": item.input["x"]})

    await run_items(make_items(10), task, store=store, config=config, progress=False)
    # Same command, more items: only the new ones run.
    again = await run_items(make_items(15), task, store=store, config=config, progress=False)
    assert (again.ran, again.skipped) == (5, 10)
    assert set(executed.values()) == {1} and len(executed) == 15
    assert len(list(store.samples(again.run_id))) == 15


async def test_changed_input_is_rerun_and_replaced(store, config):
    await run_items(make_items(3), scored, store=store, config=config, progress=False)
    changed = [RunItem(id="i0001", input={"x": 100})] + make_items(3)[::2]
    result = await run_items(changed, scored, store=store, config=config, progress=False)
    assert (result.ran, result.replaced, result.skipped) == (1, 1, 2)
    assert any("i0001" in n and "changed" in n for n in result.notes)
    [s] = [s for s in store.samples(result.run_id) if s.item_id == "i0001"]
    assert s.outputs == {"double": 200} and s.attempts == 1
    assert len(list(store.samples(result.run_id))) == 3


@pytest.mark.parametrize("concurrency", [1, 3, 8])
async def test_concurrency_bound(store, config, concurrency):
    in_flight = peak = 0

    async def task(item: RunItem) -> ItemOutcome:
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        await asyncio.sleep(0.001)
        in_flight -= 1
        return ItemOutcome()

    await run_items(make_items(40), task, store=store, config=config, concurrency=concurrency, progress=False)
    assert peak == concurrency


async def test_items_are_streamed_not_scheduled_up_front(store, config):
    pulled = started = 0
    ahead = 0

    def items():
        nonlocal pulled
        for item in make_items(500):
            pulled += 1
            yield item

    async def task(item: RunItem) -> ItemOutcome:
        nonlocal started, ahead
        started += 1
        ahead = max(ahead, pulled - started)
        await asyncio.sleep(0)
        return ItemOutcome()

    result = await run_items(items(), task, store=store, config=config, concurrency=4, progress=False)
    assert result.ran == 500 and ahead <= 4
    assert store.get_run(result.run_id).total is None  # a generator has no length


async def test_async_iterable_items_and_mappings(store, config):
    async def items():
        for k in range(5):
            await asyncio.sleep(0)
            yield {"id": k, "input": {"x": k}}

    result = await run_items(items(), scored, store=store, config=config, progress=False)
    assert result.ok == 5 and store.done_ids(result.run_id) == {(str(k), 0) for k in range(5)}


async def test_epochs(store, config):
    seen = []

    async def task(item: RunItem) -> ItemOutcome:
        seen.append((item.id, item.epoch))
        return ItemOutcome(outputs={"epoch": item.epoch})

    result = await run_items(make_items(3), task, store=store, config=config, epochs=3, progress=False)
    assert result.ran == 9 and sorted(seen) == sorted((i.id, e) for i in make_items(3) for e in range(3))
    assert store.get_run(result.run_id).total == 9
    assert all(s.outputs == {"epoch": s.epoch} for s in store.samples(result.run_id))


async def test_error_messages(store, config, monkeypatch):
    monkeypatch.setenv("ACME_API_KEY", "acme-live-000111222333")

    async def task(item: RunItem) -> ItemOutcome:
        kind = item.input["x"]
        if kind == 0:
            raise NotFoundError("no character named 'Hermoine'")
        if kind == 1:
            raise ValueError("auth failed for key sk-abcdefghijklmnopqrstuvwx")
        if kind == 2:
            raise PermissionError("server said: bad key acme-live-000111222333")
        if kind == 3:
            await asyncio.sleep(10)
        if kind == 4:
            return ItemOutcome(outputs={"obj": object()})
        if kind == 5:
            return {"outputs": {"nan": float("nan")}, "scores": {"s": float("nan"), "b": True}}
        raise KeyError("x")

    result = await run_items(make_items(7), task, store=store, config=config, progress=False, item_timeout=0.05)
    by_id = {s.item_id: s for s in store.samples(result.run_id)}
    assert by_id["i0000"].error == "no character named 'Hermoine'" and by_id["i0000"].traceback is None
    assert by_id["i0000"].error_type == "NotFoundError"
    assert by_id["i0001"].error == "ValueError: auth failed for key [REDACTED]"
    assert "acme-live" not in by_id["i0002"].error and "acme-live" not in by_id["i0002"].traceback
    assert by_id["i0003"].error_type == "TimeoutError" and "0.05s" in by_id["i0003"].error
    assert by_id["i0004"].error_type == "TypeError" and "not JSON-serializable" in by_id["i0004"].error
    assert by_id["i0005"].status == "ok" and by_id["i0005"].scores == {"s": None, "b": 1.0}
    assert by_id["i0005"].outputs == {"nan": None}
    assert by_id["i0006"].error == "KeyError: 'x'"
    assert store.summary(result.run_id).errors["TimeoutError"] == 1


async def test_duplicate_ids_run_once(store, config):
    items = make_items(3) + [RunItem(id="i0001", input={"x": 99})]
    result = await run_items(items, scored, store=store, config=config, progress=False)
    assert (result.ran, result.duplicates) == (3, 1)


async def test_fresh_run_and_templates(store, config):
    used = {}

    async def task(item: RunItem) -> ItemOutcome:
        used["judge_prompt"] = "f00d"
        return ItemOutcome()

    first = await run_items(make_items(2), task, store=store, config=config, progress=False, templates=used)
    assert store.get_run(first.run_id).config.templates == {"judge_prompt": "f00d"}
    fresh = await run_items(make_items(2), task, store=store, config=config, progress=False, fresh=True)
    assert fresh.run_id != first.run_id and fresh.ran == 2 and not fresh.resumed


async def test_broken_item_stream_lets_in_flight_finish(store, config):
    def items():
        yield from make_items(5)
        raise OSError("dataset file vanished")

    with pytest.raises(OSError, match="vanished"):
        await run_items(items(), scored, store=store, config=config, concurrency=2, progress=False)
    info = store.get_run(config.run_id)
    assert info.status == "crashed" and info.ok == 5


async def test_cancellation_records_nothing_partial_and_resumes(store, config):
    executions: Counter[str] = Counter()
    completed: set[str] = set()

    async def task(item: RunItem) -> ItemOutcome:
        executions[item.id] += 1
        await asyncio.sleep(0.005)
        completed.add(item.id)
        return ItemOutcome(outputs={"x": item.input["x"]})

    job = asyncio.create_task(run_items(make_items(100), task, store=store, config=config, concurrency=4, progress=False))
    while not store.runs() or len(store.done_ids(config.run_id)) < 20:
        await asyncio.sleep(0.002)
    job.cancel()
    with pytest.raises(asyncio.CancelledError):
        await job
    info = store.get_run(config.run_id)
    assert info.status == "interrupted"
    recorded = {item for item, _ in store.done_ids(config.run_id)}
    assert recorded <= completed and len(recorded) < 100
    in_flight = set(executions) - completed
    assert not (in_flight & recorded)

    result = await run_items(make_items(100), task, store=store, config=config, concurrency=4, progress=False)
    assert result.skipped == len(recorded) and store.get_run(config.run_id).ok == 100
    assert all(executions[i] == 1 for i in recorded)


async def test_swallowed_cancel_is_not_recorded(store, config):
    gate = asyncio.Event()

    async def stubborn(item: RunItem) -> ItemOutcome:
        try:
            gate.set()
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            return ItemOutcome(outputs={"partial": True})  # misbehaving task
        return ItemOutcome()

    job = asyncio.create_task(run_items(make_items(1), stubborn, store=store, config=config, progress=False))
    await gate.wait()
    job.cancel()
    with pytest.raises(asyncio.CancelledError):
        await job
    assert list(store.samples(config.run_id)) == []


def test_sync_run_wrapper(store, config):
    result = run(make_items(4), scored, store=store, config=config, progress=False)
    assert result.ok == 4


async def test_sync_run_inside_loop_is_refused(store, config):
    with pytest.raises(RuntimeError, match="await run_items"):
        run(make_items(1), scored, store=store, config=config, progress=False)


async def test_bad_arguments(store, config):
    with pytest.raises(ConfigError):
        await run_items([], scored, store=store, config=config, concurrency=0)
    with pytest.raises(ConfigError):
        await run_items([], scored, store=store, config=config, epochs=0)


async def test_progress_bar_shows_rate_and_eta(store, config):
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=True, width=160)
    reporter = RunProgress(True, console=console)
    await run_items(make_items(30), scored, store=store, config=config, progress=reporter)
    text = buffer.getvalue()
    assert "it/s" in text and "ETA" in text and "30/30" in text
    assert "30 ok" in text


async def test_progress_lines_when_not_a_terminal(store, config):
    buffer = io.StringIO()
    reporter = RunProgress(True, console=Console(file=buffer, force_terminal=False), every_s=0)
    await run_items(make_items(3), scored, store=store, config=config, progress=reporter)
    lines = buffer.getvalue().splitlines()
    assert any("3/3 done" in line and "it/s" in line for line in lines)
    assert "finished" in lines[-1]


async def test_secret_config_is_noted_not_stored(store):
    config = RunConfig(benchmark="demo", params={"api_key": "sk-abcdefghijklmnopqrstuv"})
    result = await run_items(make_items(1), scored, store=store, config=config, progress=False)
    assert any("params.api_key" in n for n in result.notes)
    assert "sk-abc" not in store.get_run(result.run_id).config.to_json()
    assert math.isclose(result.items_per_s, result.ran / result.elapsed_s)
