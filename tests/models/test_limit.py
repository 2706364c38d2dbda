"""The per-endpoint concurrency limit, observed from the server side."""

from __future__ import annotations

import asyncio

import pytest

from incanon.models import ConcurrencyLimitedModel, ScriptedModel, load_chat_model, user
from incanon.testing import FakeOpenAIServer


@pytest.fixture
def slow_server():
    with FakeOpenAIServer(reply_delay=0.1) as server:
        yield server


async def test_models_of_one_endpoint_share_the_limit(slow_server):
    url = slow_server.base_url
    first = load_chat_model(f"openai:model-a@{url}", max_concurrency=2)
    second = load_chat_model(f"openai:model-b@{url}", max_concurrency=2)
    calls = [m.generate([user(f"q{i}")]) for i in range(5) for m in (first, second)]
    results = await asyncio.gather(*calls)
    assert len(results) == 10
    assert slow_server.max_in_flight == 2


async def test_without_a_limit_calls_overlap(slow_server):
    model = load_chat_model(f"openai:model-a@{slow_server.base_url}")
    await asyncio.gather(*(model.generate([user(f"q{i}")]) for i in range(8)))
    assert slow_server.max_in_flight > 2


async def test_different_endpoints_have_their_own_limit():
    with FakeOpenAIServer(reply_delay=0.1) as a, FakeOpenAIServer(reply_delay=0.1) as b:
        one = load_chat_model(f"openai:m@{a.base_url}", max_concurrency=1)
        two = load_chat_model(f"openai:m@{b.base_url}", max_concurrency=3)
        await asyncio.gather(*(m.generate([user(f"{i}")]) for i in range(6) for m in (one, two)))
        assert (a.max_in_flight, b.max_in_flight) == (1, 3)


def test_limit_must_be_positive():
    with pytest.raises(ValueError):
        ConcurrencyLimitedModel(ScriptedModel(default="x"), 0)


async def test_each_model_waits_for_its_own_limit_at_a_shared_endpoint(slow_server):
    url = slow_server.base_url
    wide = load_chat_model(f"openai:wide@{url}", max_concurrency=4)
    narrow = load_chat_model(f"openai:narrow@{url}", max_concurrency=1)
    await asyncio.gather(*(wide.generate([user(f"w{i}")]) for i in range(8)))
    assert slow_server.max_in_flight == 4
    slow_server.reset()
    await asyncio.gather(*(narrow.generate([user(f"n{i}")]) for i in range(4)))
    assert slow_server.max_in_flight == 1
    slow_server.reset()
    await asyncio.gather(*(m.generate([user(f"{m.name}{i}")]) for i in range(6) for m in (wide, narrow)))
    assert slow_server.max_in_flight <= 4


async def test_cancelled_waiters_free_nothing_they_did_not_take(slow_server):
    model = load_chat_model(f"openai:m@{slow_server.base_url}", max_concurrency=1)
    first = asyncio.ensure_future(model.generate([user("a")]))
    second = asyncio.ensure_future(model.generate([user("b")]))
    await asyncio.sleep(0.02)
    second.cancel()
    await first
    with pytest.raises(asyncio.CancelledError):
        await second
    await model.generate([user("c")])
    assert slow_server.max_in_flight == 1


async def test_a_freed_slot_wakes_only_waiters_that_fit():
    from incanon.models.limit import EndpointGate

    gate = EndpointGate()
    entered: list[str] = []
    release = asyncio.Event()

    async def call(name: str, limit: int) -> None:
        async with gate.slot(limit):
            entered.append(name)
            await release.wait()

    tasks = [asyncio.ensure_future(call(f"w{i}", 2)) for i in range(5)]
    await asyncio.sleep(0.01)
    assert entered == ["w0", "w1"] and gate.active == 2
    # A wider limit behind narrow waiters still gets in while it fits.
    wide = asyncio.ensure_future(call("wide", 3))
    await asyncio.sleep(0.01)
    assert entered[-1] == "wide" and gate.active == 3
    release.set()
    await asyncio.gather(*tasks, wide)
    assert sorted(entered) == sorted(["w0", "w1", "w2", "w3", "w4", "wide"]) and gate.active == 0


async def test_many_waiters_keep_arrival_order():
    from incanon.models.limit import EndpointGate

    gate = EndpointGate()
    order: list[int] = []

    async def call(i: int) -> None:
        async with gate.slot(4):
            order.append(i)
            await asyncio.sleep(0)

    await asyncio.gather(*(call(i) for i in range(300)))
    assert order == list(range(300)) and gate.active == 0


def test_one_model_keeps_its_limit_on_every_event_loop_it_is_used_from(slow_server):
    # The model remembers the gate of the loop it last ran on; a call from another loop (the
    # server's worker loops, a second asyncio.run) must use that loop's gate, not the old one.
    import threading

    model = load_chat_model(f"openai:m@{slow_server.base_url}", max_concurrency=2)

    async def burst(n: int) -> None:
        await asyncio.gather(*(model.generate([user(f"q{i}")]) for i in range(n)))

    asyncio.run(burst(6))
    assert slow_server.max_in_flight == 2
    slow_server.reset()
    asyncio.run(burst(6))  # a new loop: a fresh gate, still limited
    assert slow_server.max_in_flight == 2
    slow_server.reset()
    # Two loops in two threads at once: each loop has its own gate, so 2 + 2 in flight, and
    # neither loop's calls ever wait on a future of the other.
    errors: list[BaseException] = []
    together = threading.Barrier(2)

    def run() -> None:
        try:
            together.wait(timeout=30)
            asyncio.run(burst(8))
        except BaseException as exc:  # noqa: BLE001 - surfaced by the assert below
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert slow_server.max_in_flight == 4
