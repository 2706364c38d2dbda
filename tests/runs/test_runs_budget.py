"""Prices per model and ``max_cost``: a clean, resumable stop at a budget."""

from __future__ import annotations

import asyncio
import json

import pytest

from incanon.errors import ConfigError, InputError
from incanon.models import ScriptedModel, load_chat_model
from incanon.models.types import Usage, user
from incanon.models.usage import record_usage
from incanon.runs import (
    BUILTIN_PRICES,
    EXAMPLE_PRICES_DATE,
    ItemOutcome,
    Price,
    Prices,
    RunItem,
    load_prices,
    run_defaults,
    run_items,
)
from runs_testutil import make_items

# -- price tables --------------------------------------------------------------------------------


def test_lookup_by_name_short_name_spec_and_glob():
    prices = Prices({
        "openai:gpt-x@http://localhost:8000/v1?max_tokens=5": {"input_per_1m": 1, "output_per_1m": 2},
        "llama3:8b": {"input_per_1m": 0.5, "output_per_1m": 0.5},
        "openai:*": {"input_per_1m": 9, "output_per_1m": 9},
        "openai:big-*": {"input_per_1m": 20, "output_per_1m": 40},
        "gguf:/models/Tiny-1B.gguf": (0.1, 0.2),
    }, fallback=None)
    assert prices.lookup("openai:gpt-x") == Price(input_per_1m=1, output_per_1m=2)
    assert prices.lookup("openai:llama3:8b").input_per_1m == 0.5  # without the kind prefix
    assert prices.lookup("openai:big-model").input_per_1m == 20  # the longer glob wins
    assert prices.lookup("openai:other").input_per_1m == 9
    assert prices.lookup("gguf:Tiny-1B") == Price(input_per_1m=0.1, output_per_1m=0.2)
    assert Prices({"scripted:rules": (1, 1)}).lookup("scripted:/tmp/rules.json").input_per_1m == 1
    assert prices.lookup("scripted") is None
    assert prices.cost("openai:gpt-x", 1_000_000, 500_000) == pytest.approx(2.0)


def test_builtin_table_is_free_for_local_models_and_labelled_examples_for_hosted():
    builtin = Prices.builtin()
    for local in ("embedded", "gguf:SmolLM2-135M-Instruct", "scripted", "scripted:rules"):
        assert builtin.cost(local, 10**6, 10**6) == 0.0
    assert builtin.lookup("openai:gpt-4o-mini") == BUILTIN_PRICES["openai:gpt-4o-mini"]
    assert EXAMPLE_PRICES_DATE.startswith("20")


def test_file_entries_win_over_builtin_and_file_formats(tmp_path):
    js = tmp_path / "p.json"
    js.write_text(json.dumps({"openai:*": {"input_per_1m": 1, "output_per_1m": 1}}))
    prices = load_prices(js)
    assert prices.lookup("openai:gpt-4o-mini").input_per_1m == 1  # the user's glob beats the example
    assert prices.lookup("embedded").input_per_1m == 0  # still falls back to the built-in table
    toml = tmp_path / "p.toml"
    toml.write_text('[prices."openai:gpt-4o"]\ninput_per_1m = 3\noutput_per_1m = 12\n')
    assert load_prices(toml).lookup("openai:gpt-4o") == Price(input_per_1m=3, output_per_1m=12)
    assert [k for k, _, src in load_prices(toml).names() if src == str(toml)] == ["openai:gpt-4o"]


@pytest.mark.parametrize("content,message", [
    ("{not json", "line 1, column 2.: invalid JSON"),
    ('["a"]', "expected an object"),
    ('{"m": {"input_per_1m": -1, "output_per_1m": 1}}', "price of 'm': input_per_1m"),
    ('{"m": {"input": 1}}', "price of 'm'"),
])
def test_bad_price_files_name_the_file_and_entry(tmp_path, content, message):
    path = tmp_path / "p.json"
    path.write_text(content)
    with pytest.raises(InputError, match=message) as caught:
        load_prices(path)
    assert "p.json" in str(caught.value)
    with pytest.raises(ConfigError, match="does not exist"):
        load_prices(tmp_path / "missing.json")


async def test_runner_prices_each_models_tokens(store, config):
    async def task(item: RunItem) -> ItemOutcome:
        record_usage("openai:pricey", Usage(calls=1, prompt_tokens=1000, completion_tokens=100))
        record_usage("scripted", Usage(calls=1, prompt_tokens=5000))
        record_usage("mystery", Usage(calls=1, prompt_tokens=7))
        return ItemOutcome()

    prices = {"pricey": {"input_per_1m": 1000, "output_per_1m": 2000}}
    result = await run_items(make_items(3), task, store=store, config=config, progress=False, prices=prices)
    assert result.usage.cost == pytest.approx(3 * (1.0 + 0.2))
    assert [n for n in result.notes if "mystery" in n] == [
        "no price known for model 'mystery': its calls count as $0 (add it to a --prices file)"]
    assert store.summary(result.run_id).usage.cost == pytest.approx(3.6)


async def test_without_prices_or_budget_the_models_own_cost_is_kept(store, config):
    model = load_chat_model(ScriptedModel(default="hi there"), prices={"scripted": (1e6, 1e6)})

    async def task(item: RunItem) -> ItemOutcome:
        await model.generate([user("one two three")])
        return ItemOutcome()

    result = await run_items(make_items(2), task, store=store, config=config, progress=False)
    assert result.usage.cost == pytest.approx(2 * (3 + 2))
    assert not result.notes


# -- budget ---------------------------------------------------------------------------------------


def _paid(cost_per_item: float):
    async def task(item: RunItem) -> ItemOutcome:
        await asyncio.sleep(0)
        record_usage("m", Usage(calls=1, cost=cost_per_item))
        return ItemOutcome(outputs={"x": item.input["x"]})

    return task


async def test_budget_stops_cleanly_and_resumes_with_a_higher_budget(store, config):
    items = make_items(20)
    first = await run_items(items, _paid(1.0), store=store, config=config, progress=False,
                            concurrency=1, max_cost=5)
    assert first.status == "stopped-budget" and first.ran == 5 and first.failed == 0
    assert store.get_run(first.run_id).status == "stopped-budget"
    assert any("budget reached: spent $5.0000 of $5.0000" in n and "--max-cost" in n for n in first.notes)
    # The same budget again: spent already, nothing starts.
    same = await run_items(items, _paid(1.0), store=store, config=config, progress=False,
                           concurrency=1, max_cost=5)
    assert (same.status, same.ran, same.skipped) == ("stopped-budget", 0, 5)
    # A higher budget continues where it stopped (the limit is over the run's sessions).
    more = await run_items(items, _paid(1.0), store=store, config=config, progress=False,
                           concurrency=1, max_cost=12)
    assert (more.status, more.ran, more.skipped) == ("stopped-budget", 7, 5)
    rest = await run_items(items, _paid(1.0), store=store, config=config, progress=False, concurrency=1)
    assert (rest.status, rest.ran) == ("finished", 8)
    assert store.get_run(rest.run_id).ok == 20
    assert store.spent_cost(rest.run_id) == pytest.approx(20.0)


async def test_in_flight_samples_finish_and_are_recorded(store, config):
    gate = asyncio.Event()
    started: list[str] = []

    async def task(item: RunItem) -> ItemOutcome:
        started.append(item.id)
        if item.id == "i0000":
            while len(started) < 4:  # wait until every worker holds a sample
                await asyncio.sleep(0)
            record_usage("m", Usage(calls=1, cost=10.0))
            gate.set()  # the budget is now gone while three others are still running
            return ItemOutcome()
        await gate.wait()
        await asyncio.sleep(0.01)
        record_usage("m", Usage(calls=1, cost=1.0))
        return ItemOutcome()

    result = await run_items(make_items(30), task, store=store, config=config, progress=False,
                             concurrency=4, max_cost=5)
    assert result.status == "stopped-budget"
    assert result.ran == len(started) == 4  # nothing new started once the budget was gone
    assert {s.item_id for s in store.samples(result.run_id)} == set(started)
    assert result.usage.cost == pytest.approx(13.0)


async def test_budget_reached_on_the_last_sample_is_a_finished_run(store, config):
    result = await run_items(make_items(4), _paid(1.0), store=store, config=config, progress=False,
                             concurrency=1, max_cost=4)
    assert (result.status, result.ran) == ("finished", 4)


async def test_zero_budget_still_runs_free_models_and_unpriced_are_named(store, config):
    async def free(item: RunItem) -> ItemOutcome:
        record_usage("scripted", Usage(calls=1, prompt_tokens=100))
        record_usage("who-knows", Usage(calls=1, prompt_tokens=1))
        return ItemOutcome()

    result = await run_items(make_items(5), free, store=store, config=config, progress=False, max_cost=0)
    assert (result.status, result.ran) == ("finished", 5)
    assert any("'who-knows'" in n for n in result.notes)


async def test_budget_from_run_defaults_uses_the_given_prices(store, config):
    async def task(item: RunItem) -> ItemOutcome:
        record_usage("openai:pricey", Usage(calls=1, prompt_tokens=1_000_000))
        return ItemOutcome()

    with run_defaults(max_cost=2.5, prices=Prices({"pricey": (1, 0)})):
        result = await run_items(make_items(10), task, store=store, config=config, progress=False,
                                 concurrency=1)
    assert (result.status, result.ran) == ("stopped-budget", 3)


def test_negative_budget_is_refused(store, config):
    with pytest.raises(ConfigError, match="max-cost"):
        asyncio.run(run_items(make_items(1), _paid(1), store=store, config=config, progress=False, max_cost=-1))
