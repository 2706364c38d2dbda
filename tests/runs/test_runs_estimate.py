"""``--dry-run``: call patterns, estimates that match real runs, and the shared CLI options."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

import pytest
import typer
from typer.testing import CliRunner

from incanon.agents import Agent, CharacterAt, Reply, Turn, create_agent, register_agent
from incanon.canon import Position
from incanon.cli.options import RunOptions, method_lines, run_options, with_run_options
from incanon.errors import ConfigError
from incanon.models import ScriptedModel, load_chat_model
from incanon.models.types import user
from incanon.runs import (
    CallPattern,
    EstimateLine,
    ItemOutcome,
    RunConfig,
    RunItem,
    RunStore,
    Shard,
    call_pattern_of,
    estimate_run,
    register_call_pattern,
    run,
)
from runs_testutil import make_items

WHO = CharacterAt(work_title="The Lamp Saga", character="Ada", position=Position.parse("1"))


@register_agent("test-two-step")
class TwoStepAgent(Agent):
    """Drafts, then polishes: always two calls."""

    call_pattern = CallPattern(calls=2, prompt_tokens=40, completion_tokens=5)

    async def respond(self, who: CharacterAt, dialogue: Sequence[Turn]) -> Reply:
        draft = await self._call("draft", [user(dialogue[-1].text)], [])
        text = await self._call("polish", [user(f"polish: {draft}")], [])
        return Reply(text=text, method=self.name)


@register_agent("test-by-item")
class ByItemAgent(Agent):
    """Asks once per letter of the question's first word (1 to 3 calls)."""

    @staticmethod
    def estimate_calls(item: RunItem) -> CallPattern:
        n = 1 + item.input["x"] % 3
        return CallPattern(calls=n, prompt_tokens=3, completion_tokens=1)

    async def respond(self, who: CharacterAt, dialogue: Sequence[Turn]) -> Reply:
        n = 1 + int(dialogue[-1].text) % 3
        for k in range(n):
            await self._call(f"step-{k}", [user("go")], [])
        return Reply(text="done", method=self.name)


def _task(agent: Agent):
    async def task(item: RunItem) -> ItemOutcome:
        reply = await agent.respond(WHO, [Turn(speaker="user", text=str(item.input["x"]))])
        return ItemOutcome(outputs={"answer": reply.text})

    return task


def test_call_patterns_come_from_the_agent_the_registry_or_a_default():
    assert call_pattern_of("test-two-step") == TwoStepAgent.call_pattern
    assert call_pattern_of("test-by-item") == ByItemAgent.estimate_calls
    refine = call_pattern_of("self-refine")
    assert (refine.low, refine.high, refine.source) == (2, 7, "built-in")
    assert call_pattern_of("no-such-method").source == "default"
    register_call_pattern("test-registered", CallPattern(calls=4))
    assert call_pattern_of("test-registered").calls == 4
    assert call_pattern_of(TwoStepAgent).calls == 2


@pytest.mark.parametrize("method", ["test-two-step", "test-by-item", "zero-shot"])
def test_estimate_matches_the_calls_a_scripted_run_makes(tmp_path, config, method):
    items = make_items(17)
    lines = method_lines([method], "scripted")
    estimate = estimate_run(items, lines)
    backend = ScriptedModel(default="fine")
    agent = create_agent(method, load_chat_model(backend))
    with RunStore(tmp_path / "r.sqlite") as store:
        result = run(items, _task(agent), store=store, config=config, progress=False)
    assert result.failed == 0
    assert estimate.calls == len(backend.calls) == result.usage.calls
    assert estimate.rows[0].calls_min <= result.usage.calls <= estimate.rows[0].calls_max
    assert estimate.cost == 0.0  # scripted is free


def test_a_range_bounds_a_method_whose_calls_vary():
    estimate = estimate_run(make_items(10), method_lines(["self-refine"], "scripted"))
    row = estimate.rows[0]
    assert (row.calls, row.calls_min, row.calls_max) == (30, 20, 70)


def test_tokens_and_cost_follow_the_pattern_and_prices():
    line = EstimateLine("judge", "openai:gpt-4o-mini", CallPattern(calls=2, prompt_tokens=1000, completion_tokens=100))
    estimate = estimate_run(make_items(50), [line], epochs=2,
                            prices={"openai:gpt-4o-mini": {"input_per_1m": 1.0, "output_per_1m": 10.0}})
    row = estimate.rows[0]
    assert (row.samples, row.calls, row.prompt_tokens, row.completion_tokens) == (100, 200, 200_000, 20_000)
    assert row.cost == pytest.approx(0.2 + 0.2)
    unknown = estimate_run(make_items(5), [EstimateLine("agent", "openai:unpriced-model")])
    assert unknown.rows[0].cost is None and unknown.cost is None


def test_estimate_leaves_out_done_samples_and_other_shards(tmp_path, config):
    items = make_items(30)
    agent = create_agent("test-two-step", load_chat_model(ScriptedModel(default="ok")))
    with RunStore(tmp_path / "r.sqlite") as store:
        run(items[:12], _task(agent), store=store, config=config, progress=False)
        resumed = estimate_run(items, method_lines(["test-two-step"], "scripted"), store=store, config=config)
        assert (resumed.items, resumed.done, resumed.samples, resumed.calls) == (30, 12, 18, 36)
        assert resumed.run_id == config.run_id
        # The run's own measurements so far, as a check on the declared pattern.
        assert resumed.measured is not None
        assert (resumed.measured["n"], resumed.measured["calls"]) == (12, 2.0)
        shard = Shard(1, 3)
        in_shard = sum(1 for i in items if shard.contains(i.id))
        sharded = estimate_run(items, method_lines(["test-two-step"], "scripted"), shard="1/3",
                               store=store, config=config)
        assert (sharded.items, sharded.done, sharded.samples) == (in_shard, 0, in_shard)
        assert sharded.run_id == shard.config(config).run_id
        # Estimating never creates a run.
        assert [r.id for r in store.runs()] == [config.run_id]


# -- the shared CLI options ------------------------------------------------------------------------

cli = CliRunner()
bench = typer.Typer()
MODELS: dict[str, ScriptedModel] = {}


@bench.command()
@with_run_options
def evaluate(
    n: int = typer.Option(10, "--n"),
    method: str = typer.Option("test-two-step", "--method"),
    runs: Path = typer.Option(..., "--runs"),
    json_: bool = typer.Option(False, "--json"),
    *,
    run_options: RunOptions,
) -> None:
    """A benchmark command in miniature."""
    backend = MODELS["agent"]
    agent = create_agent(method, load_chat_model(backend))
    items = make_items(n)
    config = RunConfig(benchmark="mini", methods=[method], models={"agent": "scripted"})
    lines = [*method_lines([method], "scripted"),
             EstimateLine("judge", "openai:gpt-4o-mini", CallPattern(calls=1, prompt_tokens=1000, completion_tokens=50))]
    store = RunStore(runs)
    if run_options.dry_run:
        run_options.print_estimate(items, lines, json_=json_, store=store, config=config)
        return
    with run_options.applied():
        result = run(items, _task(agent), store=store, config=config, progress=False)
    typer.echo(json.dumps({"run_id": result.run_id, "status": result.status, "ran": result.ran}))


def test_dry_run_calls_no_model_and_prints_the_table(tmp_path):
    MODELS["agent"] = ScriptedModel()  # no rules, no default: any call would fail
    result = cli.invoke(bench, ["--runs", str(tmp_path / "r.sqlite"), "--n", "12", "--dry-run"])
    assert result.exit_code == 0, result.output
    assert MODELS["agent"].calls == []
    for piece in ("dry run", "agent: test-two-step", "judge", "openai:gpt-4o-mini", "24", "total"):
        assert piece in result.stdout
    assert "12 items, 12 samples to run" in result.stderr
    as_json = cli.invoke(bench, ["--runs", str(tmp_path / "r.sqlite"), "--n", "12", "--dry-run", "--json",
                                 "--shard", "2/2", "--max-cost", "1"])
    data = json.loads(as_json.stdout)
    assert data["dry_run"] is True and data["shard"] == "2/2" and data["max_cost"] == 1.0
    assert data["estimate"]["calls"] == 3 * data["estimate"]["samples"]
    assert MODELS["agent"].calls == []


def test_options_apply_to_the_runs_inside(tmp_path):
    MODELS["agent"] = ScriptedModel(default="ok")
    prices = tmp_path / "p.json"
    prices.write_text(json.dumps({"scripted": {"input_per_1m": 1e6, "output_per_1m": 0}}))
    args = ["--runs", str(tmp_path / "r.sqlite"), "--n", "10", "--prices", str(prices), "--max-cost", "10"]
    result = cli.invoke(bench, [*args, "--shard", "1/1"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    # Each item's two calls send 3 prompt tokens at $1 a token (the file's price beats the built-in
    # 0): the $10 budget is gone after 4 items, and in-flight ones may add a few.
    assert out["status"] == "stopped-budget" and 4 <= out["ran"] < 10
    with RunStore(tmp_path / "r.sqlite") as store:
        assert "shard" not in store.get_run(out["run_id"]).config.params  # 1/1 is the whole run


@pytest.mark.parametrize("args,message", [
    (["--executor", "spark"], "--executor must be one of"),
    (["--address", "h:6379"], "--address needs --executor ray"),
    (["--shard", "0/2"], "numbered from 1"),
])
def test_bad_options_are_user_errors(tmp_path, args, message):
    MODELS["agent"] = ScriptedModel(default="ok")
    result = cli.invoke(bench, ["--runs", str(tmp_path / "r.sqlite"), *args])
    assert isinstance(result.exception, ConfigError) and message in str(result.exception)


def test_help_lists_the_options():
    result = cli.invoke(bench, ["--help"])
    for option in ("--executor", "--address", "--shard", "--max-cost", "--dry-run", "--prices", "--method"):
        assert option in result.stdout


def test_run_options_defaults():
    opts = run_options()
    assert (opts.executor, opts.shard, opts.max_cost, opts.dry_run) == ("local", None, None, False)
    assert opts.prices.lookup("embedded") is not None
