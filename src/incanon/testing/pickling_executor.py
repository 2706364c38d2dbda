"""An executor that ships the task through pickle, as a Ray driver does, and runs it here.

Tests use it to check that a benchmark's task reaches a worker as a ``per_worker`` factory of
picklable specs and that the factory rebuilds a working task, without starting Ray (seconds per
start). It is stricter than Ray: the standard pickle cannot send lambdas or closures by value,
and it refuses a plain task, so only the per-worker path passes.
"""

from __future__ import annotations

import pickle
from typing import ClassVar, Mapping

from incanon.errors import ConfigError
from incanon.runs.executor import Executor, LocalExecutor, PerWorker, TaskArg, register_executor
from incanon.runs.prices import Prices
from incanon.runs.sample import Attempt, WorkUnit

KIND = "pickled"


class PicklingExecutor(Executor):
    """Unpickles its own copy of each run's task factory, builds it, runs samples locally."""

    kind = KIND
    built: ClassVar[int] = 0
    """Tasks built from a pickled factory since the start of the process."""

    def __init__(self) -> None:
        self._local = LocalExecutor()

    async def prepare(self, task: TaskArg, templates: Mapping[str, str] | None = None) -> None:
        if not isinstance(task, PerWorker):
            raise ConfigError(f"the {KIND} executor takes per_worker(factory) tasks only, got {type(task).__name__}")
        try:
            pickle.dumps(task)
        except Exception as exc:  # noqa: BLE001 - any pickling failure means the same thing
            raise ConfigError(f"the task cannot be sent to workers ({type(exc).__name__}: {exc})") from None

    async def start_run(self, task: TaskArg, *, run_id: str, timeout: float | None, prices: Prices | None,
                        concurrency: int, templates: Mapping[str, str] | None = None) -> None:
        await self.prepare(task, templates)
        copy = pickle.loads(pickle.dumps(task))
        await self._local.start_run(copy, run_id=run_id, timeout=timeout, prices=prices, concurrency=concurrency)
        type(self).built += 1

    async def run(self, unit: WorkUnit) -> Attempt:
        return await self._local.run(unit)

    async def end_run(self) -> dict[str, str]:
        return await self._local.end_run()


def use_pickling_executor() -> str:
    """Register the executor (``--executor pickled``); returns its kind."""
    register_executor(KIND, lambda **options: PicklingExecutor())
    return KIND
