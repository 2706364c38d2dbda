"""SHARP as a :class:`~incanon.runs.benchmark.Benchmark`: the one driver runs it.

Items are one claim put by one partner role (and, with a backbone model, the claim put to the
backbone once); each method (one run each) answers as the main character, and a stance
detector reads the answer: Table 4 (with Table 5 and the correlations).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from incanon.agents.base import Agent
from incanon.bench.registry import register_benchmark
from incanon.bench.remote import call_by_path
from incanon.bench.sharp.cast import Cast
from incanon.bench.sharp.claims import Claim
from incanon.bench.sharp.estimate import agent_lines, judge_lines
from incanon.bench.sharp.evaluate import (
    BENCHMARK, ItemRunner, SharpSetup, build_items, check_setup, create_agents, run_config, run_dataset)
from incanon.bench.sharp.judged import RunCounts
from incanon.canon.store import CanonStore
from incanon.errors import ModelError
from incanon.runs.benchmark import SetupOnFirstUse
from incanon.runs.config import RunConfig
from incanon.runs.estimate import EstimateLine, repeated
from incanon.runs.executor import PerWorker, per_worker
from incanon.runs.records import ItemOutcome, RunItem
from incanon.runs.store import RunStore
from incanon.templates import PromptLibrary

#: How a Ray worker rebuilds a method's task (named, not imported: the worker imports this side).
WORKER_TASK = "incanon.bench.sharp.worker:build_task"


class NothingJudged(ModelError):
    """No answer of the runs got a stance: there is nothing to report."""


def nothing_judged(counts: Sequence[RunCounts]) -> str:
    """Why a report cannot be made: each run's status, failures and unread stances."""
    parts = "; ".join(f"run {c.run_id}: {c.status}, {c.failed} failed, {c.unjudged} without a stance" for c in counts)
    return f"no answer was judged, so there is nothing to report ({parts}); see `incanon runs show RUN` for the errors"


def report_counts(counts: Sequence[RunCounts]) -> list[Any]:
    """Each run's counts as the report lists them."""
    from incanon.bench.sharp.report import Counts

    return [Counts(source=c.run_id, method=c.method, status=c.status, judged=c.judged, unjudged=c.unjudged,
                   failed=c.failed, backbone=c.backbone) for c in counts]


def runs_report(store: RunStore, run_ids: Sequence[str], mode: Any, counting: Any = "within",
                meta: dict[str, str] | None = None) -> Any:
    """The report of stored runs in ``mode``; :class:`NothingJudged` when no answer has a stance."""
    from incanon.bench.sharp.judged import answers_from_runs
    from incanon.bench.sharp.report import build_report

    counts: list[RunCounts] = []
    answers = answers_from_runs(store, run_ids, counts, meta)
    if not any(c.judged for c in counts):
        raise NothingJudged(nothing_judged(counts))
    return build_report(answers, mode, report_counts(counts), counting)


@dataclass(frozen=True)
class DryRun:
    """What the estimate of an evaluation reads: spec strings and settings, no model loaded."""

    model: str
    detector: str
    backbone: str | None = None
    prompts: PromptLibrary | None = None
    max_tokens: int | None = None


@register_benchmark(BENCHMARK)
class Sharp(SetupOnFirstUse[SharpSetup]):
    """A cast's partner roles × claims × methods. ``setup`` may be a function that makes it: it is
    called when a method's agent is first needed, so a dry run loads no model."""

    name = BENCHMARK

    def __init__(self, store: CanonStore, cast: Cast, claims: Sequence[Claim], methods: Sequence[str],
                 setup: SharpSetup | Callable[[], SharpSetup], *, dry_run: DryRun | None = None,
                 counting: str = "within") -> None:
        self.store, self.cast, self.counting = store, cast, counting
        self._claims = list(claims)
        self._methods = list(methods)
        self._setup = setup
        self._dry = dry_run
        self._agents: dict[str, Agent] | None = None

    @functools.cached_property
    def runner(self) -> ItemRunner:
        """Personas, questions and the stance detector, shared by every method's run."""
        return ItemRunner(self.store, self.setup, self.prompts)

    @functools.cached_property
    def dataset(self) -> dict[str, Any]:
        """The claims and canon of every run, by content."""
        return run_dataset(self.store, self.cast, self._claims, self.setup)

    def items(self) -> list[RunItem]:
        backbone = self._dry.backbone is not None if self._dry is not None else self.setup.backbone_model is not None
        return build_items(self.cast, self._claims, backbone=backbone)

    def methods(self) -> list[str]:
        return list(self._methods)

    def agent(self, method: str) -> Agent:
        if self._agents is None:  # checks, then every method at once, before the first run
            check_setup(self.setup, self._claims)
            s = self.setup
            agents = create_agents(self._methods, s.agent_model, self.prompts, self.store, s.embedder, s.answer_params)
            self._agents = dict(zip(self._methods, agents))
        return self._agents[method]

    async def score(self, agent: Agent, item: RunItem) -> ItemOutcome:
        return await self.runner.run(agent, item)

    def config(self, method: str) -> RunConfig:
        return run_config(self.setup, self.dataset, self.agent(method).name)

    def remote(self, method: str) -> PerWorker | None:
        """The task rebuilt on a Ray worker from the setup's worker spec."""
        if self.setup.worker is None:
            return None
        return per_worker(functools.partial(call_by_path, WORKER_TASK, self.setup.worker, self.agent(method).name))

    def estimate(self) -> list[EstimateLine]:
        dry = self._dry or DryRun(model=self.setup.models.get("agent", ""),
                                  detector=self.setup.models.get("detector", ""),
                                  backbone=self.setup.models.get("backbone"), prompts=self.setup.prompts)
        judges = judge_lines(dry.detector, dry.backbone, prompts=dry.prompts, max_tokens=dry.max_tokens)
        return [*agent_lines(self._methods, dry.model),
                *(repeated(line, len(self._methods), "runs (one per method)") for line in judges)]

    def report(self, store: RunStore, run_ids: Sequence[str]) -> Any:
        """Table 4 of the runs, in the setup's mode; :class:`NothingJudged` without any stance."""
        return runs_report(store, run_ids, self.setup.mode, self.counting)
