"""Usage accounting: totals, meters, prices, cache hits and failures."""

from __future__ import annotations

import asyncio

import pytest

from incanon.errors import ModelError
from incanon.models import ScriptedModel, load_chat_model, metered, user
from incanon.models.accounting import price_of


async def test_totals_and_meters():
    model = load_chat_model(ScriptedModel(default="one two three", name="tiny"))
    with metered() as outer:
        await model.generate([user("a b")])
        with metered() as inner:
            await model.generate([user("c d e f")])
    assert (outer.total.calls, outer.total.prompt_tokens, outer.total.completion_tokens) == (2, 6, 6)
    assert (inner.total.calls, inner.total.prompt_tokens) == (1, 4)
    assert outer.by_model["tiny"].calls == 2
    assert model.usage.calls == 2 and model.usage.total_tokens == 12
    assert model.usage.latency_s >= 0


async def test_cost_from_price_table():
    prices = {"tiny": (1.0, 2.0)}  # USD per 1M input / output tokens
    model = load_chat_model(ScriptedModel(default="x " * 500, name="tiny"), prices=prices)
    with metered() as meter:
        await model.generate([user("w " * 1000)])
    assert meter.total.cost == pytest.approx((1000 * 1.0 + 500 * 2.0) / 1e6)


def test_price_lookup_tries_names_with_and_without_prefix():
    prices = {"gpt-4o-mini": (0.15, 0.6)}
    assert price_of(prices, "gpt-4o-mini-2024-07-18", "openai:gpt-4o-mini") == (0.15, 0.6)
    assert price_of(prices, "other") is None and price_of(None, "x") is None


async def test_cache_hits_cost_nothing(tmp_path):
    model = load_chat_model(
        ScriptedModel(default="a b", name="tiny"), cache=tmp_path / "c.sqlite", prices={"tiny": (5.0, 5.0)}
    )
    with metered() as meter:
        await model.generate([user("q")])
        await model.generate([user("q")])
        await model.generate([user("q")])
    assert (meter.total.calls, meter.total.cached_calls) == (1, 2)
    assert meter.total.completion_tokens == 2
    assert meter.total.cost == pytest.approx(15 / 1e6)


async def test_failed_calls_count_without_tokens():
    model = load_chat_model(ScriptedModel(queue=[ModelError("bad request")]), retry=None)
    with metered() as meter, pytest.raises(ModelError):
        await model.generate([user("q")])
    assert meter.total.calls == 1 and meter.total.total_tokens == 0


async def test_meters_follow_tasks():
    model = load_chat_model(ScriptedModel(default="ok"))

    async def item(n: int) -> int:
        with metered() as meter:
            for _ in range(n):
                await model.generate([user("q")])
                await asyncio.sleep(0)
        return meter.total.calls

    assert await asyncio.gather(item(1), item(2), item(3)) == [1, 2, 3]
