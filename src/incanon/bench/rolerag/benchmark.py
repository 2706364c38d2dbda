"""RoleRAG as a :class:`~incanon.runs.benchmark.Benchmark`: the one driver runs it.

Items are questions to a character (specific, general, out of scope); each method (one run
each) answers as the character, and three judges rate the answer: KE, KH, UQJ (Table 1).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from typing import Any, Callable, Sequence

from incanon.agents.base import Agent
from incanon.bench.registry import register_benchmark
from incanon.bench.remote import call_by_path
from incanon.bench.rolerag.estimate import judge_lines, profile_line
from incanon.bench.rolerag.evaluate import BENCHMARK, EvalSetup, answer_item, method_agent, run_config
from incanon.bench.rolerag.items import RoleRAGQuestion, fingerprint
from incanon.bench.rolerag.judges import RoleRAGJudges
from incanon.runs.benchmark import SetupOnFirstUse
from incanon.runs.config import RunConfig
from incanon.runs.estimate import EstimateLine, method_lines, repeated
from incanon.runs.executor import PerWorker, per_worker
from incanon.runs.records import ItemOutcome, RunItem
from incanon.runs.store import RunStore
from incanon.templates import PromptLibrary

#: How a Ray worker rebuilds a method's task (named, not imported: the worker imports this side).
WORKER_TASK = "incanon.bench.rolerag.worker:build_task"


@dataclass(frozen=True)
class DryRun:
    """What the estimate of an evaluation reads: spec strings and settings, no model loaded."""

    model: str
    judge: str
    prompts: PromptLibrary | None = None
    protocol: str = "incanon"
    """``paper``: graph retrieval makes one entity call instead of a hypothesis and an entity call."""

    @classmethod
    def of(cls, setup: EvalSetup) -> "DryRun":
        """The figures of an evaluation set up already."""
        return cls(model=setup.models.get("agent", ""), judge=setup.models.get("judge", ""), prompts=setup.prompts,
                   protocol=str(setup.options.get("protocol", "incanon")))


@register_benchmark(BENCHMARK)
class RoleRAG(SetupOnFirstUse[EvalSetup]):
    """RoleRAG questions × methods. ``setup`` may be a function that makes it: it is called when
    a method's agent is first needed, so a dry run loads no model and opens no store."""

    name = BENCHMARK

    def __init__(self, items: Sequence[RoleRAGQuestion], methods: Sequence[str],
                 setup: EvalSetup | Callable[[], EvalSetup], *, dry_run: DryRun | None = None) -> None:
        self._items = list(items)
        self._methods = list(methods)
        self._setup = setup
        self._dry = dry_run if dry_run is not None or callable(setup) else DryRun.of(setup)

    @functools.cached_property
    def judges(self) -> RoleRAGJudges:
        """KE, KH and UQJ on the judge model, shared by every method's run."""
        return RoleRAGJudges.on(self.setup.judge_model, self.prompts)

    def items(self) -> list[RunItem]:
        return [RunItem(id=i.id, input=i.row()) for i in self._items]

    def methods(self) -> list[str]:
        return list(self._methods)

    def agent(self, method: str) -> Agent:
        return method_agent(method, self.setup, self.prompts)

    async def score(self, agent: Agent, item: RunItem) -> ItemOutcome:
        return await answer_item(agent, self.judges, self.setup, item)

    def config(self, method: str) -> RunConfig:
        dataset = {**self.setup.dataset, "items": len(self._items), "fingerprint": fingerprint(self._items)}
        return run_config(self.setup, dataset, method)

    def remote(self, method: str) -> PerWorker | None:
        """The task rebuilt on a Ray worker from the setup's worker spec."""
        if self.setup.worker is None:
            return None
        return per_worker(functools.partial(call_by_path, WORKER_TASK, self.setup.worker, method))

    def estimate(self) -> list[EstimateLine]:
        dry = self._dry or DryRun.of(self.setup)
        lines = method_lines(self._methods, dry.model)
        if dry.protocol == "paper":  # one entity call instead of hypothesis + entities
            from incanon.bench.rolerag.agents import PAPER_CALLS

            lines = [replace(line, pattern=PAPER_CALLS, note="paper protocol: one entity call (up to 5 re-asks)")
                     if line.label.endswith(("rolerag", "rolerag-cutoff")) else line for line in lines]
        lines = [*lines, *(repeated(line, len(self._methods), "runs (one per method)")
                           for line in judge_lines(dry.judge, dry.prompts))]
        if "profile" in self._methods:
            lines.insert(len(self._methods), profile_line(self._items, dry.model, dry.prompts))
        return lines

    def report(self, store: RunStore, run_ids: Sequence[str]) -> Any:
        """Table 1 of the runs."""
        from incanon.bench.rolerag.report import build_report, rows_from_runs

        return build_report(rows_from_runs(store, run_ids))
