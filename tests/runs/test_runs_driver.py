"""The one driver: any Benchmark dry run or evaluated (one resumable run per method), with the
scale options of the block, its agents built before any run, and its report read back."""

from __future__ import annotations

import functools
from typing import Any, Sequence

import pytest

from incanon.errors import ConfigError
from incanon.models.types import Usage
from incanon.models.usage import record_usage
from incanon.runs import ItemOutcome, RunConfig, RunItem, RunStore, run_defaults
from incanon.runs.benchmark import Benchmark, epochs_of, templates_of
from incanon.runs.driver import RunSettings, estimate, evaluate, task_for
from incanon.runs.estimate import CallPattern, EstimateLine, RunEstimate
from incanon.runs.executor import PerWorker, per_worker
from incanon.runs.shard import Shard


class Doubling:
    """A small benchmark: each method doubles (or triples) ``x``; an item scores 1 when right."""

    name = "doubling"

    def __init__(self, n: int = 6, methods: Sequence[str] = ("double", "triple"), *, broken: str | None = None):
        self.n, self._methods, self.broken = n, list(methods), broken
        self.built: list[str] = []
        self.scored: list[tuple[str, str, int]] = []
        self.templates = {"doubling_prompt": "abc123"}

    def items(self) -> list[RunItem]:
        return [RunItem(id=f"q{i}", input={"x": i + 1}) for i in range(self.n)]

    def methods(self) -> list[str]:
        return list(self._methods)

    def agent(self, method: str) -> int:
        if method == self.broken:
            raise ConfigError(f"method {method} cannot be built")
        self.built.append(method)
        return {"double": 2, "triple": 3}[method]

    async def score(self, agent: int, item: RunItem) -> ItemOutcome:
        record_usage("m", Usage(calls=1, prompt_tokens=10, completion_tokens=2))
        self.scored.append((item.id, str(agent), item.epoch))
        answer = agent * item.input["x"]
        return ItemOutcome(outputs={"answer": answer}, scores={"right": float(answer == 2 * item.input["x"])})

    def config(self, method: str) -> RunConfig:
        return RunConfig(benchmark=self.name, task="doubling", methods=[method], models={"agent": "scripted"})

    def estimate(self) -> list[EstimateLine]:
        return [EstimateLine("agent", "scripted", CallPattern(calls=1, prompt_tokens=10, completion_tokens=2))]

    def report(self, store: RunStore, run_ids: Sequence[str]) -> dict[str, float]:
        return {store.get_run(r).config.methods[0]: store.summary(r).scores[0].mean for r in run_ids}


@pytest.fixture
def settings(store) -> RunSettings:
    return RunSettings(store=store, progress=False, concurrency=2)


def test_a_benchmark_class_is_a_benchmark():
    assert isinstance(Doubling(), Benchmark)
    assert epochs_of(Doubling()) == 1 and templates_of(Doubling()) == {"doubling_prompt": "abc123"}
    assert not isinstance(object(), Benchmark)


async def test_each_method_is_its_own_run_and_the_report_reads_them(settings):
    bench = Doubling()
    done = await evaluate(bench, settings)
    assert done.methods == ["double", "triple"]
    assert [r.run_id for r in done.results] == [bench.config(m).run_id for m in done.methods]
    assert [(r.ran, r.ok, r.status) for r in done.results] == [(6, 6, "finished")] * 2
    assert done.report() == {"double": 1.0, "triple": 0.0}
    stored = settings.store.get_run(done.run_ids[0]).config
    assert stored.templates == {"doubling_prompt": "abc123"}
    assert settings.store.summary(done.run_ids[1]).usage.calls == 6


async def test_running_again_resumes_every_run(settings):
    await evaluate(Doubling(), settings)
    again = Doubling()
    done = await evaluate(again, settings)
    assert [(r.resumed, r.ran, r.skipped) for r in done.results] == [(True, 0, 6)] * 2
    assert again.scored == []
    fresh = await evaluate(Doubling(), RunSettings(store=settings.store, progress=False, fresh=True))
    assert [r.ran for r in fresh.results] == [6, 6] and fresh.run_ids != done.run_ids


async def test_every_agent_is_built_before_the_first_run_starts(settings):
    bench = Doubling(broken="triple")
    with pytest.raises(ConfigError, match="triple cannot be built"):
        await evaluate(bench, settings)
    assert bench.scored == [] and list(settings.store.runs()) == []


async def test_no_method_is_an_error(settings):
    with pytest.raises(ConfigError, match="no method"):
        await evaluate(Doubling(methods=()), settings)


async def test_epochs_and_shards_come_from_the_benchmark_and_the_block(settings):
    bench = Doubling(n=20)
    bench.epochs = 2  # type: ignore[attr-defined]
    with run_defaults(shard="2/3"):
        done = await evaluate(bench, settings)
    mine = [i.id for i in bench.items() if Shard(2, 3).contains(i.id)]
    assert 0 < len(mine) < 20
    assert [r.ran for r in done.results] == [2 * len(mine)] * 2
    assert {(item, epoch) for item, agent, epoch in bench.scored if agent == "2"} == {
        (i, e) for i in mine for e in (0, 1)}
    assert settings.store.get_run(done.run_ids[0]).config.params["shard"] == "2/3"


def test_the_estimate_is_the_benchmarks_lines_over_its_items_and_epochs():
    bench = Doubling(n=9)
    bench.epochs = 3  # type: ignore[attr-defined]
    whole = estimate(bench, prices={"scripted": {"input_per_1m": 1.0, "output_per_1m": 2.0}})
    assert (whole.items, whole.samples, whole.calls) == (9, 27, 27)
    assert whole.cost == pytest.approx(27 * (10 * 1.0 + 2 * 2.0) / 1e6)
    part = estimate(bench, shard="1/2")
    assert part.items == sum(Shard(1, 2).contains(i.id) for i in bench.items()) and part.items < 9
    assert bench.scored == []  # nothing was run


def test_a_benchmark_may_estimate_itself():
    class Planned(Doubling):
        def dry_run(self, *, prices: Any, shard: Shard | None) -> RunEstimate:
            self.asked = (prices.source, shard)
            return RunEstimate(items=1, samples=5, rows=[])

    bench = Planned()
    with run_defaults(shard="1/4"):
        assert estimate(bench).samples == 5
    assert bench.asked[1] == Shard(1, 4)


async def test_a_benchmark_may_run_a_method_itself(settings):
    class Sequential(Doubling):
        async def execute(self, method: str, agent: int, settings: RunSettings) -> Any:
            self.executed = getattr(self, "executed", []) + [(method, agent, settings.store)]
            return await super_run(self, method, agent, settings)

    async def super_run(bench: Any, method: str, agent: int, settings: RunSettings) -> Any:
        from incanon.runs.runner import run_items

        return await run_items(bench.items()[:2], functools.partial(bench.score, agent), store=settings.store,
                               config=bench.config(method), progress=False)

    bench = Sequential()
    done = await evaluate(bench, settings)
    assert [(m, a) for m, a, _ in bench.executed] == [("double", 2), ("triple", 3)]
    assert [r.ran for r in done.results] == [2, 2]


def _rebuild(method: str) -> Any:
    bench = Doubling()
    return functools.partial(bench.score, bench.agent(method))


def test_the_remote_task_is_used_only_when_samples_run_elsewhere():
    class Remote(Doubling):
        def remote(self, method: str) -> PerWorker:
            return per_worker(functools.partial(_rebuild, method))

    bench = Remote()
    local = task_for(bench, "double", 2)
    assert isinstance(local, functools.partial) and local.args == (2,)
    from incanon.testing.pickling_executor import PicklingExecutor

    with run_defaults(executor=PicklingExecutor()):
        sent = task_for(bench, "double", 2)
        assert isinstance(sent, PerWorker)
        plain = task_for(Doubling(), "double", 2)  # no remote: the local task goes as it is
        assert isinstance(plain, functools.partial)


async def test_a_remote_task_runs_on_the_workers(settings):
    from incanon.testing.pickling_executor import PicklingExecutor

    class Remote(Doubling):
        def remote(self, method: str) -> PerWorker:
            return per_worker(functools.partial(_rebuild, method))

    bench = Remote()
    before = PicklingExecutor.built
    with run_defaults(executor=PicklingExecutor()):
        done = await evaluate(bench, settings)
    assert PicklingExecutor.built - before == 2  # one task per run, rebuilt from the pickle
    assert bench.scored == [] and done.report() == {"double": 1.0, "triple": 0.0}
