"""Runner overhead: how many samples per second the runner and run store sustain.

Prints figures; not a test. For each task kind (a trivial async task, and, when
``incanon.models.ScriptedModel`` is available, one scripted model call per item through the
accounting wrapper) and each concurrency, it runs N items into a fresh store, then runs the same
command again (every item already done: the resume pass) and reports both, best of ``--repeat``
tries (the machine is shared: the best try is the one least disturbed by other work).

Samples are committed with group commit (:mod:`incanon.runs.commits`): a worker waits for its
sample's commit before it pulls the next item, so at concurrency 1 every sample is still one
transaction (its commit is most of the cost there), and at concurrency c up to c samples share
one.

    .venv/bin/python benchmarks/runner.py [--items 10000] [--concurrency 1 8 64] [--repeat 3]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Callable

from incanon import __version__
from incanon.runs import ItemOutcome, RunConfig, RunItem, RunStore, Task, run_items


def trivial_task() -> Task:
    async def task(item: RunItem) -> ItemOutcome:
        return ItemOutcome(outputs={"echo": item.input["x"]}, scores={"even": item.input["x"] % 2 == 0})

    return task


def scripted_task() -> Task | None:
    try:
        from incanon.models import AccountingModel, ScriptedModel, user
    except ImportError:
        return None
    model = AccountingModel(ScriptedModel(default="I would not know of such things, good sir."))

    async def task(item: RunItem) -> ItemOutcome:
        completion = await model.generate([user(f"Question {item.input['x']}: where were you?")])
        model.inner.calls.clear()  # the scripted model keeps every call; keep memory flat
        return ItemOutcome(outputs={"reply": completion.text}, scores={"len": len(completion.text)})

    return task


async def measure(
    name: str, make_task: Callable[[], Task], n: int, concurrency: int, folder: Path
) -> tuple[float, float, int]:
    """(seconds for the full run, seconds for the resume pass, model calls stored)."""
    items = [RunItem(id=f"item-{k:06d}", input={"x": k, "text": "the lantern burns low"}) for k in range(n)]
    config = RunConfig(benchmark=f"bench-{name}", params={"concurrency": concurrency})
    with RunStore(folder / f"{name}-{concurrency}.sqlite") as store:
        t0 = time.perf_counter()
        first = await run_items(items, make_task(), store=store, config=config, concurrency=concurrency, progress=False)
        full = time.perf_counter() - t0
        t0 = time.perf_counter()
        again = await run_items(items, make_task(), store=store, config=config, concurrency=concurrency, progress=False)
        resume = time.perf_counter() - t0
        assert first.ok == n and again.skipped == n and again.ran == 0
        calls = store.summary(first.run_id).usage.calls
    return full, resume, calls


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 8, 64])
    parser.add_argument("--repeat", type=int, default=3, help="tries per row; the best is shown")
    args = parser.parse_args()

    kinds: list[tuple[str, Callable[[], Task]]] = [("trivial", trivial_task)]
    if scripted_task() is not None:
        kinds.append(("scripted-model", scripted_task))  # type: ignore[arg-type]
    else:
        print("(incanon.models.ScriptedModel not importable: scripted-model rows skipped)")

    print(f"incanon {__version__}, Python {platform.python_version()}, SQLite {sqlite3.sqlite_version}, "
          f"{platform.machine()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}; {args.items:,} items "
          f"per run, group commit; best of {args.repeat}")
    header = f"{'task':<15} {'conc':>5} {'run s':>8} {'items/s':>9} {'µs/item':>8} {'resume s':>9} {'resume items/s':>15} {'calls':>7}"
    print(header)
    print("-" * len(header))
    with tempfile.TemporaryDirectory() as tmp:
        for name, make_task in kinds:
            for concurrency in args.concurrency:
                tries = []
                for k in range(args.repeat):
                    tries.append(await measure(name, make_task, args.items, concurrency, Path(tmp) / f"try{k}"))
                full, resume = min(t[0] for t in tries), min(t[1] for t in tries)
                calls = tries[0][2]
                print(f"{name:<15} {concurrency:>5} {full:>8.2f} {args.items / full:>9,.0f} "
                      f"{full / args.items * 1e6:>8.0f} {resume:>9.3f} {args.items / resume:>15,.0f} {calls:>7,}")


if __name__ == "__main__":
    asyncio.run(main())
