"""The Ray executor (``--executor ray [--address ...]``, extra ``incanon[ray]``).

Samples run in async Ray actors spread over the cluster (one per CPU, at most one per sample in
flight); each actor builds the task once and runs many samples of it concurrently. The driver
keeps everything else: it decides what still needs running (resume is unchanged), sends each
unit to the least busy actor and writes the returned record to its own run store. Workers
never touch the store, so it can stay a local SQLite file on the driver's machine.

Workers need incanon (and whatever the task imports) installed; the task is pickled with
cloudpickle, so it must not hold open connections or files: wrap a factory in
:func:`incanon.runs.per_worker` to build those inside each worker.
"""

from __future__ import annotations

import asyncio
import math
import os
from typing import Any, Mapping

from incanon.errors import ConfigError
from incanon.runs.config import utcnow
from incanon.runs.executor import Executor, TaskArg, build_task
from incanon.runs.prices import Prices
from incanon.runs.records import RunItem, SampleRecord
from incanon.runs.sample import Attempt, WorkUnit, describe_error, run_sample

try:
    import ray
except ImportError:  # pragma: no cover - exercised only without the extra
    ray = None


class _SampleWorker:
    """The actor: the task built once, samples run on the actor's event loop."""

    def __init__(self, bundle: tuple[TaskArg, Mapping[str, str] | None], run_id: str, timeout: float | None,
                 prices: Prices | None):
        # Task and templates mapping arrive as one pickle, so the mapping is still the one the
        # task's prompt library writes to.
        self.task, self.templates = build_task(*bundle)
        self.run_id, self.timeout, self.prices = run_id, timeout, prices

    def ready(self) -> bool:
        return True

    def templates_used(self) -> dict[str, str]:
        return dict(self.templates or {})

    async def run(self, payload: dict[str, Any]) -> dict[str, Any]:
        unit = WorkUnit(RunItem.model_validate(payload["item"]), payload["digest"], payload["problem"])
        attempt = await run_sample(unit, self.task, self.run_id, self.timeout, self.prices)
        # The driver has the input already; do not send it back.
        return {"sample": attempt.sample.model_dump(mode="json", exclude={"input"}),
                "unpriced": attempt.unpriced}


def _require_ray() -> Any:
    if ray is None:
        raise ConfigError("the ray executor needs Ray: pip install 'incanon[ray]'")
    return ray


class RayExecutor(Executor):
    """Runs samples on a Ray cluster: ``address`` as for ``ray.init`` (None: the cluster in
    ``RAY_ADDRESS``, or a new local one), ``workers`` actors (default: the cluster's CPUs,
    at most one per sample in flight)."""

    kind = "ray"

    def __init__(self, address: str | None = None, *, workers: int | None = None,
                 max_task_retries: int = 2, init_options: dict[str, Any] | None = None):
        _require_ray()
        if workers is not None and workers < 1:
            raise ConfigError(f"workers must be at least 1, got {workers}")
        self.address = address
        self.workers = workers
        self.max_task_retries = max_task_retries
        self.init_options = dict(init_options or {})
        self._owns_ray = False
        self._actors: list[Any] = []
        self._load: list[int] = []
        self._run_id = ""

    def connect(self) -> None:
        """Join (or start) the Ray cluster unless this process already has."""
        if ray.is_initialized():
            return
        options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                                   "ignore_reinit_error": True, **self.init_options}
        try:
            ray.init(address=self.address, **options)
        except (ConnectionError, RuntimeError) as exc:
            where = self.address or os.environ.get("RAY_ADDRESS") or "a new local instance"
            hint = ""
            if "auth" in str(exc).lower() or "auth" in str(exc.__cause__ or "").lower():
                hint = ("; the cluster wants its token: set RAY_AUTH_MODE=token and RAY_AUTH_TOKEN "
                        "(or the token file ~/.ray/auth_token) as on the head node")
            raise ConfigError(f"cannot join the Ray cluster at {where}: {exc}{hint}") from None
        self._owns_ray = True

    def describe(self) -> str:
        return f"ray ({len(self._actors)} workers)" if self._actors else "ray"

    async def prepare(self, task: TaskArg, templates: Mapping[str, str] | None = None) -> None:
        self.connect()
        try:
            ray.cloudpickle.dumps((task, templates))  # fail here, with the remedy, not in every worker
        except Exception as exc:  # noqa: BLE001 - any pickling failure has the same remedy
            raise ConfigError(
                f"the task cannot be sent to Ray workers ({type(exc).__name__}: {exc}); build what it "
                "needs inside each worker with incanon.runs.per_worker(factory)") from None

    async def start_run(self, task: TaskArg, *, run_id: str, timeout: float | None,
                        prices: Prices | None, concurrency: int,
                        templates: Mapping[str, str] | None = None) -> None:
        self.connect()
        self._run_id = run_id
        bundle = (task, templates)  # one argument, one pickle: the task's templates mapping stays shared
        cpus = int(ray.cluster_resources().get("CPU", 1))
        count = max(1, min(self.workers or cpus, concurrency))
        per_actor = math.ceil(concurrency / count)
        actor_cls = ray.remote(_SampleWorker).options(
            num_cpus=1 if self.workers is None else 0, max_concurrency=per_actor,
            max_restarts=2, max_task_retries=self.max_task_retries, scheduling_strategy="SPREAD")
        self._actors = [actor_cls.remote(bundle, run_id, timeout, prices) for _ in range(count)]
        self._load = [0] * count
        try:
            await asyncio.gather(*(actor.ready.remote() for actor in self._actors))
        except Exception as exc:  # noqa: BLE001
            await self.end_run()
            cause = getattr(exc, "cause", None) or exc
            raise ConfigError(f"Ray workers could not build the task: {type(cause).__name__}: {cause}") from None

    async def run(self, unit: WorkUnit) -> Attempt:
        index = min(range(len(self._actors)), key=self._load.__getitem__)
        self._load[index] += 1
        payload = {"item": unit.item.model_dump(mode="json"), "digest": unit.digest, "problem": unit.problem}
        started = utcnow()
        ref = self._actors[index].run.remote(payload)
        try:
            result = await ref
        except asyncio.CancelledError:
            ray.cancel(ref)
            raise
        except Exception as exc:  # noqa: BLE001 - a lost worker fails this sample, not the run
            error_type, error, tb = describe_error(exc)
            sample = SampleRecord(
                run_id=self._run_id, item_id=unit.item.id, epoch=unit.item.epoch, input_hash=unit.digest or "-",
                started=started, finished=utcnow(), status="error",
                error_type=error_type, error=error, traceback=tb)
            result = {"sample": sample.model_dump(mode="json", exclude={"input"}), "unpriced": []}
        finally:
            self._load[index] -= 1
        record = SampleRecord.model_validate(
            {**result["sample"], "input": unit.item.input if unit.digest is not None else {}})
        return Attempt(record, list(result["unpriced"]))

    async def end_run(self) -> dict[str, str]:
        used: dict[str, str] = {}
        if self._actors:
            try:
                for part in await asyncio.gather(*(a.templates_used.remote() for a in self._actors)):
                    used.update(part)
            except Exception:  # noqa: BLE001 - a dead worker's templates are lost, not the run
                pass
        for actor in self._actors:
            try:
                ray.kill(actor)
            except Exception:  # noqa: BLE001 - already gone
                pass
        self._actors, self._load = [], []
        return used

    def shutdown(self) -> None:
        if self._owns_ray and ray.is_initialized():
            ray.shutdown()
        self._owns_ray = False
