"""The Ray executor on a local two-CPU Ray instance: same results as local, same resume."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import subprocess
import sys

import pytest

ray = pytest.importorskip("ray")

from incanon.errors import ConfigError  # noqa: E402
from incanon.models.types import Usage  # noqa: E402
from incanon.models.usage import record_usage  # noqa: E402
from incanon.runs import (  # noqa: E402
    ItemOutcome,
    RunItem,
    RunProgress,
    RunStore,
    create_executor,
    per_worker,
    run_defaults,
    run_items,
)
from runs_testutil import make_items  # noqa: E402

pytestmark = pytest.mark.slow  # starting Ray takes ~10 s (once per session: the ray_session fixture)

# Workers cannot import this test module by name: send its functions by value.
ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])


@pytest.fixture
def ray_cluster(ray_session):
    """The session's local Ray instance (tests/conftest.py): started once for every Ray test."""
    yield


async def scored(item: RunItem) -> ItemOutcome:
    await asyncio.sleep(0.005)
    x = item.input["x"]
    record_usage("openai:priced", Usage(calls=1, prompt_tokens=10 * (x + 1), completion_tokens=3))
    if x % 7 == 0:
        raise ValueError(f"judge reply for {x} unreadable")
    return ItemOutcome(outputs={"double": 2 * x, "epoch": item.epoch, "pid": os.getpid()},
                       scores={"odd": x % 2, "x": x})


PRICES = {"priced": {"input_per_1m": 1_000, "output_per_1m": 2_000}}


def _comparable(store: RunStore, run_id: str) -> dict:
    rows = {}
    for s in store.samples(run_id):
        outputs = dict(s.outputs or {})
        outputs.pop("pid", None)
        rows[(s.item_id, s.epoch)] = (s.input_hash, s.input, s.status, outputs, s.scores, s.error_type, s.error,
                                      s.usage.model_copy(update={"latency_s": 0.0}))
    return rows


async def test_ray_results_equal_the_local_runners(ray_cluster, tmp_path, config):
    items = make_items(40)
    with RunStore(tmp_path / "local.sqlite") as local, RunStore(tmp_path / "ray.sqlite") as remote:
        a = await run_items(items, scored, store=local, config=config, progress=False, epochs=2, prices=PRICES)
        b = await run_items(items, scored, store=remote, config=config, progress=False, epochs=2, prices=PRICES,
                            executor="ray", concurrency=8)
        assert a.run_id == b.run_id
        assert (b.status, b.ran, b.ok, b.failed) == (a.status, a.ran, a.ok, a.failed) == ("finished", 80, 68, 12)
        same = {"latency_s": 0, "cost": 0}
        assert b.usage.model_copy(update=same) == a.usage.model_copy(update=same)
        assert b.usage.cost == pytest.approx(a.usage.cost) and b.usage.cost > 0
        assert _comparable(remote, b.run_id) == _comparable(local, a.run_id)
        pids = {s.outputs["pid"] for s in remote.samples(b.run_id) if s.outputs}
        assert os.getpid() not in pids and len(pids) == 2  # two actors, neither the driver
        failed = next(remote.samples(b.run_id, status="error"))
        assert failed.error == "ValueError: judge reply for 0 unreadable" and "scored" in failed.traceback
    assert ray.is_initialized()  # an executor that joined a running Ray leaves it running


class _StopAfter(RunProgress):
    """Cancels the run after ``n`` recorded samples (as Ctrl-C would)."""

    def __init__(self, n: int, victim: list[asyncio.Task]):
        super().__init__(False)
        self.n, self.victim = n, victim

    def advance(self, ok: bool) -> None:
        super().advance(ok)
        if self.done == self.n:
            self.victim[0].cancel()


async def test_ray_run_resumes_after_an_interruption(ray_cluster, tmp_path, config):
    items = make_items(60)
    with RunStore(tmp_path / "local.sqlite") as local:
        reference = await run_items(items, scored, store=local, config=config, progress=False, prices=PRICES)
        expected = _comparable(local, reference.run_id)
    executor = create_executor("ray")
    victim: list[asyncio.Task] = []
    with RunStore(tmp_path / "ray.sqlite") as store:
        victim.append(asyncio.create_task(run_items(
            items, scored, store=store, config=config, prices=PRICES, executor=executor, concurrency=4,
            progress=_StopAfter(15, victim))))
        with pytest.raises(asyncio.CancelledError):
            await victim[0]
        info = store.get_run(config.run_id)
        done = info.done
        assert info.status == "interrupted" and 15 <= done < 60
        resumed = await run_items(items, scored, store=store, config=config, progress=False, prices=PRICES,
                                  executor=executor, concurrency=4, retry_failed=False)
        assert resumed.resumed and resumed.skipped == done and resumed.ran == 60 - done
        assert _comparable(store, config.run_id) == expected
        # Nothing done before the interruption ran again; nothing in flight was half-recorded.
        assert {s.attempts for s in store.samples(config.run_id)} == {1}
        assert store.get_run(config.run_id).status == "finished"


def _unpicklable_task():
    db = sqlite3.connect(":memory:")

    async def task(item: RunItem) -> ItemOutcome:
        (value,) = db.execute("SELECT ? * 2", (item.input["x"],)).fetchone()
        return ItemOutcome(outputs={"y": value})

    return task


async def test_a_task_that_cannot_be_sent_is_a_clear_error_and_per_worker_fixes_it(ray_cluster, tmp_path, config):
    with RunStore(tmp_path / "r.sqlite") as store:
        with pytest.raises(ConfigError, match="per_worker"):
            await run_items(make_items(5), _unpicklable_task(), store=store, config=config, progress=False,
                            executor="ray")
        assert store.runs() == []  # refused before the run was opened
        # Built inside each worker instead: the connection never travels.
        result = await run_items(make_items(5), per_worker(_unpicklable_task), store=store, config=config,
                                 progress=False, executor="ray")
        assert (result.ok, result.failed) == (5, 0)
        assert sorted(s.outputs["y"] for s in store.samples(result.run_id)) == [0, 2, 4, 6, 8]


async def test_budget_and_shard_apply_on_ray_too(ray_cluster, tmp_path, config):
    async def paid(item: RunItem) -> ItemOutcome:
        record_usage("m", Usage(calls=1, cost=1.0))
        return ItemOutcome()

    executor = create_executor("ray")
    with RunStore(tmp_path / "r.sqlite") as store, run_defaults(executor=executor, shard="1/2", max_cost=3):
        result = await run_items(make_items(40), paid, store=store, config=config, progress=False, concurrency=1)
        assert result.status == "stopped-budget" and result.ran == 3
        assert store.get_run(result.run_id).config.params["shard"] == "1/2"


DRIVER = '''
import asyncio, json, sys
from incanon.runs import ItemOutcome, RunConfig, RunItem, RunStore, create_executor, run_items

async def task(item):
    return ItemOutcome(outputs={"y": item.input["x"] + 1})

async def main():
    items = [RunItem(id=f"i{k}", input={"x": k}) for k in range(12)]
    with RunStore(sys.argv[1]) as store:
        result = await run_items(items, task, store=store, config=RunConfig(benchmark="second-driver"),
                                 progress=False, executor=create_executor("ray", address=sys.argv[2]))
    print(json.dumps({"ok": result.ok, "status": result.status}))

asyncio.run(main())
'''


def test_a_second_driver_joins_the_cluster_by_address(ray_cluster, tmp_path):
    # Another process (another machine, in real use) joins the running cluster with --address.
    script = tmp_path / "driver.py"
    script.write_text(DRIVER)
    address = ray.get_runtime_context().gcs_address
    done = subprocess.run([sys.executable, str(script), str(tmp_path / "r.sqlite"), address],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {"ok": 12, "status": "finished"}
    with RunStore(tmp_path / "r.sqlite", create=False) as store:
        assert sorted(s.outputs["y"] for s in store.samples(store.runs()[0].id)) == list(range(1, 13))
    assert ray.is_initialized()  # the second driver left the cluster running when it disconnected


def _crashing_once(marker: str):
    async def task(item: RunItem) -> ItemOutcome:
        if item.id == "i0005" and not os.path.exists(marker):
            open(marker, "w").close()
            os._exit(1)  # the worker process dies mid-sample (OOM killer, lost node)
        await asyncio.sleep(0.01)
        return ItemOutcome(outputs={"x": item.input["x"]})

    return task


async def test_a_worker_lost_mid_run_is_restarted_and_its_samples_retried(ray_cluster, tmp_path, config):
    marker = tmp_path / "crashed"
    with RunStore(tmp_path / "r.sqlite") as store:
        result = await run_items(make_items(20), _crashing_once(str(marker)), store=store, config=config,
                                 progress=False, executor="ray", concurrency=4)
        assert marker.exists()
        assert (result.status, result.ok, result.failed) == ("finished", 20, 0)
        assert sorted(s.outputs["x"] for s in store.samples(result.run_id)) == list(range(20))


def _templated(prompts):
    async def task(item: RunItem) -> ItemOutcome:
        return ItemOutcome(outputs={"text": prompts.render("scale_probe", who=item.id)})

    return task


async def test_templates_rendered_in_workers_are_recorded(ray_cluster, tmp_path, config):
    from incanon.templates import PromptLibrary, fingerprint

    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "scale_probe.j2").write_text("Hello {{ who }}")
    expected = {"scale_probe": fingerprint("Hello {{ who }}")}
    with RunStore(tmp_path / "r.sqlite") as store:
        prompts = PromptLibrary(tmp_path / "prompts")
        result = await run_items(make_items(6), _templated(prompts), store=store, config=config, progress=False,
                                 executor="ray", templates=prompts.used)
        assert prompts.used == {}  # rendered in the workers, not here ...
        assert store.get_run(result.run_id).config.templates == expected  # ... and recorded all the same
        assert next(store.samples(result.run_id)).outputs["text"].startswith("Hello i00")

        def factory():
            library = PromptLibrary(tmp_path / "prompts")
            return _templated(library), library.used

        other = config.model_copy(update={"task": "per-worker factory"})
        result = await run_items(make_items(6), per_worker(factory), store=store, config=other, progress=False,
                                 executor="ray")
        assert store.get_run(result.run_id).config.templates == expected
