"""Executors: where the runner's samples run. The driver (the runner) always decides what runs
and writes every result to the run store; an executor only turns a work unit into a record.

- ``local``: in this process's event loop (the default).
- ``ray``: on the workers of a Ray cluster (``incanon[ray]``), see :mod:`incanon.runs.ray_executor`.

Plugins add kinds with :func:`register_executor`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Callable, ClassVar, Mapping, Union

from incanon.errors import ConfigError
from incanon.runs.prices import Prices
from incanon.runs.sample import Attempt, Task, WorkUnit, run_sample


@dataclass(frozen=True)
class PerWorker:
    """A task built where it runs: ``factory()`` is called once per worker (once locally, once
    per Ray actor), so models, HTTP clients and database handles are made there, not pickled.

    The factory returns the task, or ``(task, prompts.used)`` so the templates the workers
    render are recorded in the run's config."""

    factory: Callable[[], Any]

    def build(self) -> tuple[Task, Mapping[str, str] | None]:
        """Make the task; also the mapping of templates it renders, when the factory gives one."""
        made = self.factory()
        if isinstance(made, tuple) and len(made) == 2 and callable(made[0]):
            return made[0], made[1]
        return made, None


def per_worker(factory: Callable[[], Any]) -> PerWorker:
    """Wrap a task factory; pass the result to ``run_items`` in place of a task."""
    return PerWorker(factory)


TaskArg = Union[Task, PerWorker]
"""A task, or a :class:`PerWorker` factory of one."""


def build_task(task: TaskArg, templates: Mapping[str, str] | None = None) -> tuple[Task, Mapping[str, str] | None]:
    """The task itself (a factory's product), and the templates mapping it fills."""
    return task.build() if isinstance(task, PerWorker) else (task, templates)


class ExecutorKind(StrEnum):
    """Built-in executors."""

    LOCAL = "local"
    RAY = "ray"


class Executor(ABC):
    """Runs samples for one run at a time: ``start_run``, ``run`` per unit, ``end_run``.

    One executor object may serve several runs in a row (a CLI evaluating several methods);
    ``shutdown`` releases what it holds (a cluster connection it opened).
    """

    kind: ClassVar[str]

    async def prepare(self, task: TaskArg, templates: Mapping[str, str] | None = None) -> None:
        """Check that ``task`` can run here (connect, try to serialize it) before the run is
        opened in the store, so a configuration error never leaves a crashed run behind."""

    @abstractmethod
    async def start_run(self, task: TaskArg, *, run_id: str, timeout: float | None,
                        prices: Prices | None, concurrency: int,
                        templates: Mapping[str, str] | None = None) -> None:
        """Get ready to run samples of ``run_id`` with ``task`` (``concurrency`` in flight).

        ``templates`` is the mapping the task records rendered templates in (``prompts.used``);
        executors that run the task elsewhere report what the workers' copies recorded."""

    @abstractmethod
    async def run(self, unit: WorkUnit) -> Attempt:
        """Run one sample; never raises for the task's own errors (they are in the record)."""

    async def end_run(self) -> dict[str, str]:
        """The run is over (finished, stopped or cancelled): release its workers; return the
        templates they rendered that the driver's ``templates`` mapping cannot have seen."""
        return {}

    def shutdown(self) -> None:
        """Release everything (called by whoever created the executor)."""

    def describe(self) -> str:
        """One line for the run's closing message."""
        return self.kind


class LocalExecutor(Executor):
    """Samples run as coroutines of the runner's own event loop."""

    kind = "local"

    def __init__(self) -> None:
        self._task: Task | None = None
        self._own_templates: Mapping[str, str] | None = None
        self._run_id = ""
        self._timeout: float | None = None
        self._prices: Prices | None = None

    async def start_run(self, task: TaskArg, *, run_id: str, timeout: float | None,
                        prices: Prices | None, concurrency: int,
                        templates: Mapping[str, str] | None = None) -> None:
        self._task, used = build_task(task, templates)
        self._own_templates = used if used is not templates else None
        self._run_id, self._timeout, self._prices = run_id, timeout, prices

    async def run(self, unit: WorkUnit) -> Attempt:
        assert self._task is not None, "start_run() first"
        return await run_sample(unit, self._task, self._run_id, self._timeout, self._prices)

    async def end_run(self) -> dict[str, str]:
        used = dict(self._own_templates or {})
        self._task = self._own_templates = None
        return used


_FACTORIES: dict[str, Callable[..., Executor]] = {}


def register_executor(kind: str, factory: Callable[..., Executor]) -> None:
    """Make ``factory(**options)`` the executor named ``kind``."""
    _FACTORIES[kind] = factory


def _lazy(path: str) -> Callable[..., Executor]:
    # Built-ins named by "module:class" and imported when used (as graphrag's factories do):
    # the Ray executor module imports this one, and Ray itself is an optional extra.
    def make(**options: Any) -> Executor:
        import importlib

        module, _, name = path.partition(":")
        return getattr(importlib.import_module(module), name)(**options)

    return make


register_executor(ExecutorKind.LOCAL, lambda **options: LocalExecutor(**options))
register_executor(ExecutorKind.RAY, _lazy("incanon.runs.ray_executor:RayExecutor"))


def executor_kinds() -> list[str]:
    """Names of every registered executor."""
    return sorted(_FACTORIES)


def create_executor(kind: str | Executor | None = None, **options: Any) -> Executor:
    """The executor ``kind`` (``local`` by default) made with ``options`` (e.g. ``address=``)."""
    if isinstance(kind, Executor):
        return kind
    name = str(kind or ExecutorKind.LOCAL)
    factory = _FACTORIES.get(name)
    if factory is None:
        raise ConfigError(f"unknown executor {name!r}; known: {', '.join(executor_kinds())}")
    if name == ExecutorKind.LOCAL and options.get("address"):
        raise ConfigError("--address is for the ray executor (--executor ray)")
    options = {k: v for k, v in options.items() if not (name == ExecutorKind.LOCAL and v is None)}
    return factory(**options)
