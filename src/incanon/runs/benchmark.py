"""The benchmark protocol: what a benchmark gives the one driver (:mod:`incanon.runs.driver`).

A benchmark says *what* is measured: its items (each with a stable id), the methods it compares
(one run each), the agent of a method, the scoring of one item by that agent, the identity of a
method's run, the model calls it would make, and the report of its runs. *How* it runs (dry run,
cost estimate, shards, local or Ray execution, resume, budget, the closing report) is the
driver's, the same for every benchmark, as inspect_ai's ``eval`` runs any registered task.

A sixth benchmark is one class with these members (registered by name in
:mod:`incanon.bench.registry`); docs/benchmarks.md walks through one.

Optional members, read with the helpers below when a benchmark has them:

- ``epochs: int``: samples per item (default 1);
- ``templates: Mapping[str, str]``: the prompt library's ``used`` mapping, recorded with each run;
- ``remote(method) -> TaskArg | None``: how a worker elsewhere (``--executor ray``) rebuilds the
  method's task, typically ``per_worker(...)`` of a picklable spec; None: the local task is sent;
- ``execute(method, agent, settings) -> Awaitable[result]``: run the method's run itself, for a
  benchmark whose units are not independent items (DialSim replays a dialogue in order, with
  memory carried from session to session);
- ``dry_run(prices, shard) -> RunEstimate``: the estimate, for a benchmark whose estimate is not
  :meth:`Benchmark.estimate`'s lines over its items (DialSim's plans per repetition).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Generic, Mapping, Protocol, Sequence, TypeVar, runtime_checkable

from incanon.runs.config import RunConfig
from incanon.runs.estimate import EstimateLine
from incanon.runs.records import RunItem
from incanon.runs.sample import TaskResult
from incanon.templates import PromptLibrary, default_library

if TYPE_CHECKING:
    from incanon.runs.store import RunStore


@runtime_checkable
class Benchmark(Protocol):
    """One benchmark, set up for one evaluation (its items, methods and models chosen)."""

    name: str
    """The benchmark's name: its registry key and the first part of its run ids."""

    def items(self) -> Sequence[RunItem]:
        """The items, in order, each with an id that stays the same from run to run (resume and
        shards go by it)."""
        ...

    def methods(self) -> Sequence[str]:
        """The methods (or settings) evaluated: one run each, in this order."""
        ...

    def agent(self, method: str) -> Any:
        """The method's agent, built once per run. The driver builds every method's agent
        before the first run starts, so a bad method fails before anything is stored."""
        ...

    def score(self, agent: Any, item: RunItem) -> Awaitable[TaskResult]:
        """Run one item (``item.epoch`` set) through ``agent`` and score it: an
        :class:`~incanon.runs.records.ItemOutcome` with outputs, scores and extra."""
        ...

    def config(self, method: str) -> RunConfig:
        """The configuration naming the method's run (its identity gives the run id)."""
        ...

    def estimate(self) -> Sequence[EstimateLine]:
        """The model calls of one item, per step (agent, each judge), for ``--dry-run``."""
        ...

    def report(self, store: "RunStore", run_ids: Sequence[str]) -> Any:
        """The report (the paper's tables) of stored runs of this benchmark; calls no model."""
        ...


def epochs_of(bench: Benchmark) -> int:
    """Samples per item (the benchmark's ``epochs``, else 1)."""
    return int(getattr(bench, "epochs", 1) or 1)


def templates_of(bench: Benchmark) -> Mapping[str, str] | None:
    """The mapping the benchmark's prompt library records rendered templates in, if any."""
    return getattr(bench, "templates", None)


__all__ = ["Benchmark", "SetupOnFirstUse", "epochs_of", "templates_of"]


S = TypeVar("S")


class SetupOnFirstUse(Generic[S]):
    """What benchmarks whose models load only when runs start share: ``_setup`` is the setup
    (models, stores, settings) or a function making it, made on first use so a dry run loads no
    model; ``prompts`` is the setup's prompt library (else the built-in one) and ``templates``
    what it rendered so far (recorded with each run)."""

    _setup: S | Callable[[], S]

    @functools.cached_property
    def setup(self) -> S:
        """The evaluation's models, stores and settings (made on first use)."""
        return self._setup() if callable(self._setup) else self._setup  # type: ignore[return-value]

    @functools.cached_property
    def prompts(self) -> PromptLibrary:
        """The prompt library every agent and judge renders with."""
        return getattr(self.setup, "prompts", None) or default_library()

    @property
    def templates(self) -> Mapping[str, str]:
        """The templates rendered so far (recorded with each run)."""
        return self.prompts.used
