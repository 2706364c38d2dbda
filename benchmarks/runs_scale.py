"""Runs at scale: items/s of the local and the Ray executor, and merge time of shard stores.

Prints figures; not a test. Three task kinds over N items (default 2,000), each on the local
executor and on a local Ray instance with 2 CPUs (2 actors):

- ``trivial``: returns at once (the executor's own overhead per item);
- ``api 20ms``: one model call that waits 20 ms without holding a CPU (a hosted model);
- ``cpu 20ms``: one model call that holds the worker's CPU for 20 ms (a local model).

Then 4 shard runs of ~10k samples each are merged into one store.

    .venv/bin/python benchmarks/runs_scale.py [--items 2000] [--concurrency 16] [--merge-items 40000]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import tempfile
import time
from pathlib import Path
from typing import Sequence

from incanon import __version__
from incanon.models import AccountingModel, Completion, GenerationParams, Message, user
from incanon.runs import ItemOutcome, RunConfig, RunItem, RunStore, create_executor, merge_stores, run_items


class SimulatedModel:
    """A chat model that takes ``seconds`` per call, waiting (``blocking=False``) or busy."""

    def __init__(self, seconds: float, blocking: bool):
        self.seconds, self.blocking = seconds, blocking

    @property
    def name(self) -> str:
        return "scripted:simulated"

    async def generate(self, messages: Sequence[Message], params: GenerationParams | None = None) -> Completion:
        if self.blocking:
            time.sleep(self.seconds)  # a local model: the worker's CPU is busy
        else:
            await asyncio.sleep(self.seconds)
        return Completion(text="I would not know, good sir.", model=self.name, prompt_tokens=12, completion_tokens=6)


class Trivial:
    async def __call__(self, item: RunItem) -> ItemOutcome:
        return ItemOutcome(outputs={"echo": item.input["x"]}, scores={"even": item.input["x"] % 2 == 0})


class OneCall:
    def __init__(self, blocking: bool):
        self.model = AccountingModel(SimulatedModel(0.02, blocking))

    async def __call__(self, item: RunItem) -> ItemOutcome:
        completion = await self.model.generate([user(f"Question {item.input['x']}: where were you?")])
        return ItemOutcome(outputs={"reply": completion.text}, scores={"len": len(completion.text)})


def _items(n: int) -> list[RunItem]:
    return [RunItem(id=f"item-{k:06d}", input={"x": k, "text": "the lantern burns low"}) for k in range(n)]


async def _throughput(kind: str, task, executor, n: int, concurrency: int, folder: Path) -> tuple[float, int]:
    config = RunConfig(benchmark=f"scale-{kind}", params={"executor": executor.kind})
    with RunStore(folder / f"{kind}-{executor.kind}.sqlite") as store:
        t0 = time.perf_counter()
        result = await run_items(_items(n), task, store=store, config=config, concurrency=concurrency,
                                 progress=False, executor=executor)
        elapsed = time.perf_counter() - t0
    assert result.ok == n, result
    return result.ran / elapsed, result.ran


async def _make_shards(n: int, folder: Path) -> list[Path]:
    paths = []
    config = RunConfig(benchmark="scale-merge")
    items = _items(n)
    for i in range(1, 5):
        path = folder / f"shard{i}.sqlite"
        with RunStore(path) as store:
            await run_items(items, Trivial(), store=store, config=config, shard=f"{i}/4", concurrency=8,
                            progress=False)
        paths.append(path)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--merge-items", type=int, default=40_000)
    args = parser.parse_args()

    import ray

    print(f"incanon {__version__}, ray {ray.__version__}, Python {platform.python_version()}, "
          f"{platform.machine()}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    t0 = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    print(f"ray.init(num_cpus=2): {time.perf_counter() - t0:.1f}s (once; not in the figures below)\n")
    kinds = {"trivial": Trivial, "api 20ms": lambda: OneCall(blocking=False), "cpu 20ms": lambda: OneCall(blocking=True)}
    print(f"{args.items:,} items, concurrency {args.concurrency} (ray: 2 actors x {args.concurrency // 2}); "
          "wall time includes starting the actors")
    print(f"{'task':<10} {'executor':<8} {'items/s':>9} {'wall s':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for kind, make in kinds.items():
            for name in ("local", "ray"):
                executor = create_executor(name)
                rate, ran = asyncio.run(_throughput(kind.replace(" ", "-"), make(), executor, args.items,
                                                    args.concurrency, folder))
                print(f"{kind:<10} {name:<8} {rate:>9,.1f} {ran / rate:>8.1f}", flush=True)
        ray.shutdown()

        print()
        t0 = time.perf_counter()
        shards = asyncio.run(_make_shards(args.merge_items, folder))
        built = time.perf_counter() - t0
        sizes = []
        for path in shards:
            with RunStore(path, create=False) as store:
                sizes.append(store.runs()[0].done)
        t0 = time.perf_counter()
        report = merge_stores(folder / "merged.sqlite", shards)
        merged = time.perf_counter() - t0
        n = report.runs[0].samples
        print(f"merge: 4 shards of {', '.join(f'{s:,}' for s in sizes)} samples (built in {built:.1f}s) "
              f"-> {n:,} samples in {merged:.2f}s ({n / merged:,.0f} samples/s)")
        t0 = time.perf_counter()
        merge_stores(folder / "merged.sqlite", shards)
        print(f"the same merge again (the output already has every sample: nothing written): "
              f"{time.perf_counter() - t0:.2f}s")


if __name__ == "__main__":
    main()
