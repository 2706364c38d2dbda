"""CoSER's two runs as :class:`~incanon.runs.benchmark.Benchmark`\\ s: the one driver runs both.

- :class:`CoserSimulation` (``coser-gca``): each test case's scene simulated by the cast (one
  agent per character, the environment, a next-speaker predictor), scored with BLEU / ROUGE-L.
- :class:`CoserJudging` (``coser-judge``): the ok cases of a simulation run critiqued on the four
  dimensions into a run of its own.

Both report Table 2 (:func:`incanon.bench.coser.report.report_from_runs`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from incanon.bench.coser.critics import Critic
from incanon.bench.coser.estimate import critic_line, simulation_lines
from incanon.bench.coser.formats import TestSample
from incanon.bench.coser.simulation.engine import Cast, SimulationConfig
from incanon.bench.coser.simulation.runs import (
    JUDGE_BENCHMARK, SIMULATION_BENCHMARK, JudgeSetup, SimulationSetup, epochs_of, judge_config, judge_item,
    judge_items, simulate_item, simulation_config, simulation_items)
from incanon.bench.registry import register_benchmark
from incanon.bench.remote import call_by_path
from incanon.runs.config import RunConfig
from incanon.runs.estimate import EstimateLine
from incanon.runs.executor import PerWorker, per_worker
from incanon.runs.records import ItemOutcome, RunItem
from incanon.runs.store import RunStore
from incanon.templates import PromptLibrary

#: How Ray workers rebuild the tasks (named, not imported: the worker module imports this side).
SIMULATION_WORKER = "incanon.bench.coser.worker:build_simulation_task"
JUDGING_WORKER = "incanon.bench.coser.worker:build_judging_task"


def _report(store: RunStore, run_ids: Sequence[str]) -> Any:
    from incanon.bench.coser.report import report_from_runs

    return report_from_runs(store, list(run_ids))


@dataclass(frozen=True)
class SimulationDryRun:
    """What the estimate of a simulation reads: spec strings and settings, no model loaded."""

    config: SimulationConfig
    actor: str
    nsp: str
    env: str
    prompts: PromptLibrary | None = None
    epochs: int = 1


@register_benchmark(SIMULATION_BENCHMARK)
class CoserSimulation:
    """Test cases simulated by one cast: a single run (its method names the retrieval setting).
    ``setup`` may be a function that makes it, called when the cast is first needed."""

    name = SIMULATION_BENCHMARK

    def __init__(self, samples: Sequence[TestSample], setup: SimulationSetup | Callable[[], SimulationSetup], *,
                 dry_run: SimulationDryRun | None = None) -> None:
        self._samples = list(samples)
        self._setup = setup
        self._dry = dry_run

    @functools.cached_property
    def setup(self) -> SimulationSetup:
        """The cast, run store and settings (made on first use)."""
        return self._setup() if callable(self._setup) else self._setup

    @property
    def epochs(self) -> int:
        """Simulations of every case."""
        return self._dry.epochs if self._dry is not None else self.setup.epochs

    @property
    def templates(self) -> Mapping[str, str]:
        """The templates the cast rendered so far (recorded with the run)."""
        return self.setup.cast.prompts.used

    def items(self) -> list[RunItem]:
        return simulation_items(self._samples)

    def methods(self) -> list[str]:
        return list(simulation_config(self.setup).methods)

    def agent(self, method: str) -> Cast:
        return self.setup.cast

    async def score(self, agent: Cast, item: RunItem) -> ItemOutcome:
        return await simulate_item(agent, self.setup.config, item)

    def config(self, method: str) -> RunConfig:
        return simulation_config(self.setup)

    def remote(self, method: str) -> PerWorker | None:
        """The task rebuilt on a Ray worker from the setup's worker spec."""
        if self.setup.worker is None:
            return None
        return per_worker(functools.partial(call_by_path, SIMULATION_WORKER, self.setup.worker))

    def estimate(self) -> list[EstimateLine]:
        dry = self._dry or SimulationDryRun(self.setup.config, actor=self.setup.specs.get("actor", ""),
                                            nsp=self.setup.specs.get("nsp", ""), env=self.setup.specs.get("env", ""),
                                            prompts=self.setup.cast.prompts, epochs=self.setup.epochs)
        return simulation_lines(dry.config, actor=dry.actor, nsp=dry.nsp, env=dry.env, prompts=dry.prompts)

    def report(self, store: RunStore, run_ids: Sequence[str]) -> Any:
        """Table 2 (BLEU / ROUGE-L until the runs are judged)."""
        return _report(store, run_ids)


@register_benchmark(JUDGE_BENCHMARK)
class CoserJudging:
    """The ok cases of the simulation run ``source_run`` in ``store``, critiqued: a single run.
    ``setup`` may be a function that makes it, called when the critic is first needed."""

    name = JUDGE_BENCHMARK

    def __init__(self, store: RunStore, source_run: str, setup: JudgeSetup | Callable[[], JudgeSetup], *,
                 critic: str | None = None, prompts: PromptLibrary | None = None) -> None:
        self.store, self.source_run = store, source_run
        self._setup = setup
        self._critic, self._prompts = critic, prompts

    @functools.cached_property
    def setup(self) -> JudgeSetup:
        """The critic model and settings (made on first use)."""
        return self._setup() if callable(self._setup) else self._setup

    @functools.cached_property
    def _items(self) -> list[RunItem]:
        return list(judge_items(self.store, self.source_run))

    @property
    def epochs(self) -> int:
        """One past the highest simulated epoch."""
        return epochs_of(self._items)

    @property
    def templates(self) -> Mapping[str, str]:
        """The templates the critic rendered so far (recorded with the run)."""
        return self.setup.prompts.used

    def items(self) -> list[RunItem]:
        return self._items

    def methods(self) -> list[str]:
        return [self.setup.critic_spec]

    def agent(self, method: str) -> Critic:
        s = self.setup
        return Critic(s.critic, s.prompts, s.params, thoughts=s.thoughts)

    async def score(self, agent: Critic, item: RunItem) -> ItemOutcome:
        return await judge_item(agent, item)

    def config(self, method: str) -> RunConfig:
        return judge_config(self.store, self.source_run, self.setup)

    def remote(self, method: str) -> PerWorker | None:
        """The task rebuilt on a Ray worker from the setup's worker spec."""
        if self.setup.worker is None:
            return None
        return per_worker(functools.partial(call_by_path, JUDGING_WORKER, self.setup.worker))

    def estimate(self) -> list[EstimateLine]:
        critic = self._critic if self._critic is not None else self.setup.critic_spec
        return [critic_line(critic, self._prompts if self._critic is not None else self.setup.prompts)]

    def report(self, store: RunStore, run_ids: Sequence[str]) -> Any:
        """Table 2 of the judged runs."""
        return _report(store, run_ids)
