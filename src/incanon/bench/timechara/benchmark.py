"""TimeChara as a :class:`~incanon.runs.benchmark.Benchmark`: the one driver runs it.

Items are interview questions to a character at a point of the story; each method (one run
each) answers as the character there, and the judges score the answer (spatiotemporal,
personality, hallucination type): Table 5.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from incanon.agents.base import Agent
from incanon.bench.registry import register_benchmark
from incanon.bench.remote import call_by_path
from incanon.bench.timechara.estimate import judge_lines
from incanon.bench.timechara.evaluate import (
    BENCHMARK, EvalSetup, Judges, answer_item, items_fingerprint, run_config, setup_agents)
from incanon.bench.timechara.items import TimeCharaItem
from incanon.runs.benchmark import SetupOnFirstUse
from incanon.runs.config import RunConfig
from incanon.runs.estimate import EstimateLine, method_lines, repeated
from incanon.runs.executor import PerWorker, per_worker
from incanon.runs.records import ItemOutcome, RunItem
from incanon.runs.store import RunStore
from incanon.templates import PromptLibrary

#: How a Ray worker rebuilds a method's task (named, not imported: the worker imports this side).
WORKER_TASK = "incanon.bench.timechara.worker:build_task"


@dataclass(frozen=True)
class DryRun:
    """What the estimate of an evaluation reads: spec strings and settings, no model loaded."""

    judge: str
    model: str | None = None
    """The model under test; None when recorded answers are judged (no agent call)."""
    prompts: PromptLibrary | None = None
    hallucination_types: bool = True
    personalities: Mapping[str, str] | None = None

    @classmethod
    def of(cls, setup: EvalSetup) -> "DryRun":
        """The figures of an evaluation set up already."""
        return cls(judge=setup.models.get("judge", ""), model=None if setup.recorded else setup.models.get("agent"),
                   prompts=setup.prompts, hallucination_types=setup.hallucination_types,
                   personalities=setup.resolver.personalities)


@register_benchmark(BENCHMARK)
class TimeChara(SetupOnFirstUse[EvalSetup]):
    """TimeChara items × methods. ``setup`` may be a function that makes it: it is called when a
    method's agent is first needed, so a dry run loads no model and opens no run store."""

    name = BENCHMARK

    def __init__(self, items: Sequence[TimeCharaItem], methods: Sequence[str],
                 setup: EvalSetup | Callable[[], EvalSetup], *, dry_run: DryRun | None = None) -> None:
        self._items = list(items)
        self._methods = list(methods)
        self._setup = setup
        self._dry = dry_run if dry_run is not None or callable(setup) else DryRun.of(setup)
        self._agents: dict[str, Agent] | None = None

    @functools.cached_property
    def judges(self) -> Judges:
        """The judges, on the judge model, shared by every method's run."""
        s = self.setup
        return Judges.on(s.judge_model, self.prompts, s.hallucination_types, s.judge_params, s.reading(),
                         authors=s.protocol == "paper")

    def items(self) -> list[RunItem]:
        return [RunItem(id=item.id, input=item.row()) for item in self._items]

    def methods(self) -> list[str]:
        return list(self._methods)

    def agent(self, method: str) -> Agent:
        if self._agents is None:  # every method at once: a problem with any fails before the first run
            agents = setup_agents(self._methods, self._items, self.setup, self.prompts)
            self._agents = dict(zip(self._methods, agents))
        return self._agents[method]

    async def score(self, agent: Agent, item: RunItem) -> ItemOutcome:
        return await answer_item(agent, self.setup.resolver, self.judges, item)

    def config(self, method: str) -> RunConfig:
        dataset = {**self.setup.dataset, "items": len(self._items), "fingerprint": items_fingerprint(self._items)}
        return run_config(self.setup, dataset, self.agent(method), self.judges)

    def remote(self, method: str) -> PerWorker | None:
        """The task rebuilt on a Ray worker from the setup's worker spec (none for recorded answers)."""
        if self.setup.worker is None:
            return None
        return per_worker(functools.partial(call_by_path, WORKER_TASK, self.setup.worker, self.agent(method).name))

    def estimate(self) -> list[EstimateLine]:
        dry = self._dry or DryRun.of(self.setup)
        agents = [] if dry.model is None else method_lines(self._methods, dry.model)
        judges = judge_lines(dry.judge, prompts=dry.prompts, hallucination_types=dry.hallucination_types,
                             personalities=dry.personalities)
        return [*agents, *(repeated(line, len(self._methods), "runs (one per method)") for line in judges)]

    def report(self, store: RunStore, run_ids: Sequence[str]) -> Any:
        """Table 5 of the runs."""
        from incanon.bench.timechara.judged import rows_from_runs, run_summaries
        from incanon.bench.timechara.report import build_report

        return build_report(rows_from_runs(store, run_ids), run_summaries(store, run_ids))
