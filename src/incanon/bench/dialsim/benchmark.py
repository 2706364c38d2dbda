"""DialSim as a :class:`~incanon.runs.benchmark.Benchmark`: the one driver runs its settings.

A *setting* (memory strategy × time limit) is one run; its items are repetitions, each a whole
replay of the dialogue with its own seed. Repetitions are not independent items of the usual
kind: sessions run in order with the agent's memory carried over, so a cut-short repetition
resumes after its last stored session. The benchmark therefore runs a setting itself
(``execute``, :func:`incanon.bench.dialsim.runs.run_setting`, where ``--shard``, ``--max-cost``
and ``--executor`` act on repetitions) and estimates its own calls (``dry_run``: the question
plans per repetition); one repetition as an item (``score``) is what a Ray worker simulates.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from incanon.bench.dialsim.estimate import estimate_items, setting_lines
from incanon.bench.dialsim.outcomes import SessionRecord
from incanon.bench.dialsim.questions import Question
from incanon.bench.dialsim.runs import BENCHMARK, RunOutcome, RunSetup, make_judge, run_config, run_setting
from incanon.bench.dialsim.scale import Scale
from incanon.bench.dialsim.script import DialScript
from incanon.bench.dialsim.simulator import SimConfig
from incanon.bench.dialsim.worker import simulate_repetition
from incanon.bench.registry import register_benchmark
from incanon.runs.config import RunConfig
from incanon.runs.driver import RunSettings
from incanon.runs.estimate import EstimateLine, RunEstimate, estimate_run
from incanon.runs.prices import Prices
from incanon.runs.records import ItemOutcome, RunItem
from incanon.runs.shard import Shard
from incanon.runs.store import RunStore

Progress = Callable[[int, int, SessionRecord, int, int], object]


@dataclass(frozen=True)
class Grid:
    """The settings of one command (memory strategies × time limits) and what their estimate reads."""

    memories: Sequence[str]
    limits: Sequence[float]
    model: str
    answer_format: str = "mc"
    seed: int = 0
    repetitions: int = 1
    protocol: str = "incanon"
    judge: str | None = None
    style: str | None = None
    context_tokens: int | None = None
    warm_model: bool | None = None
    """``--warm-up`` / ``--no-warm-up`` (None: the protocol's default)."""

    def settings(self) -> list[tuple[str, str, float]]:
        """(label, memory, time limit) of every setting, time limits outermost."""
        return [(f"{mem} @ {limit:g}s" if limit > 0 else f"{mem}, no limit", mem, limit)
                for limit in self.limits for mem in self.memories]


@register_benchmark(BENCHMARK)
class DialSim:
    """The settings of ``grid`` over one dialogue and question pool. ``setting(memory, limit)``
    makes a setting's :class:`RunSetup` (models loaded there, so a dry run loads none);
    ``progress(label)`` gives the session callback of a setting, ``announce(label, outcome)``
    hears each setting's outcome as soon as it ends."""

    name = BENCHMARK

    def __init__(self, script: DialScript, questions: list[Question], grid: Grid,
                 setting: Callable[[str, float], RunSetup], *,
                 progress: Callable[[str], Progress | None] | None = None,
                 announce: Callable[[str, RunOutcome], None] | None = None) -> None:
        self.script, self.questions, self.grid = script, questions, grid
        self._setting = setting
        self.progress = progress
        """Gives each setting's session callback (a command's progress bars); may be set later."""
        self.announce = announce
        """Hears each setting's outcome as soon as it ends (a command's closing line per setting)."""
        self._setups: dict[str, RunSetup] = {}

    def _where(self, label: str) -> tuple[str, float]:
        for name, mem, limit in self.grid.settings():
            if name == label:
                return mem, limit
        raise KeyError(label)

    def items(self) -> list[RunItem]:
        """One item per repetition: its seed."""
        return [RunItem(id=f"repetition-{e}", input={"seed": self.grid.seed + e})
                for e in range(self.grid.repetitions)]

    def methods(self) -> list[str]:
        return [label for label, _, _ in self.grid.settings()]

    def agent(self, method: str) -> RunSetup:
        """The setting's setup (its memory agent is made afresh for each repetition)."""
        if method not in self._setups:
            self._setups[method] = self._setting(*self._where(method))
        return self._setups[method]

    async def score(self, agent: RunSetup, item: RunItem) -> ItemOutcome:
        """One repetition simulated whole, from its first session (as on a Ray worker)."""
        judge = make_judge(agent.judge_model, prompts=agent.prompts, lenient=agent.config.lenient,
                           prompt_set=agent.prompt_set, prompts_from=agent.prompts_from)
        return await simulate_repetition(agent, judge, agent.style, Scale.current().prices, item)

    def config(self, method: str) -> RunConfig:
        return run_config(self.agent(method))

    async def execute(self, method: str, agent: RunSetup, settings: RunSettings) -> RunOutcome:
        """The setting's run: each repetition not done yet, each from its last stored session."""
        progress = self.progress(method) if self.progress is not None else None
        outcome = await run_setting(agent, settings.store, progress=progress)
        if self.announce is not None:
            self.announce(method, outcome)
        return outcome

    def estimate(self) -> list[EstimateLine]:
        g = self.grid
        return [line for _, mem, limit in g.settings()
                for line in setting_lines(mem, SimConfig(time_limit=limit, answer_format=g.answer_format,  # type: ignore[arg-type]
                                                         seed=g.seed, protocol=g.protocol, warm_model=g.warm_model),
                                          model=g.model, judge=g.judge, style=g.style)]

    def dry_run(self, *, prices: Prices, shard: Shard | None) -> RunEstimate:
        """Every setting's calls over the question plans of this shard's repetitions."""
        g = self.grid
        epochs = Scale(shard=shard).epochs(g.repetitions)
        config = SimConfig(answer_format=g.answer_format, seed=g.seed, protocol=g.protocol)  # type: ignore[arg-type]
        items = estimate_items(self.script, self.questions, config, epochs, g.context_tokens)
        # The shard already chose the repetitions; items are (session, repetition) pairs, not shard units.
        return estimate_run(items, self.estimate(), prices=prices, shard=Shard(1, 1))

    def report(self, store: RunStore, run_ids: Sequence[str]) -> Any:
        """Tables 3-4 of the settings' runs."""
        from incanon.bench.dialsim.report import DialsimReport, settings_from_runs

        return DialsimReport(settings=settings_from_runs(store, run_ids))


__all__ = ["DialSim", "Grid"]
