"""A run to be killed: used by test_runs_kill.py as a subprocess (not a test module).

usage: kill_worker.py STORE SIDE_FILE N_ITEMS SLEEP_S CONCURRENCY
Every task start appends the item id to SIDE_FILE, so the test can count executions.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import sys

from incanon.models.types import Usage
from incanon.models.usage import record_usage
from incanon.runs import ItemOutcome, RunConfig, RunItem, RunStore, run


def config(n: int) -> RunConfig:
    return RunConfig(benchmark="killtest", params={"n": n})


def items(n: int) -> list[RunItem]:
    return [RunItem(id=f"item-{k:03d}", input={"k": k}) for k in range(n)]


def make_task(side_file: str | None, sleep_s: float):
    async def task(item: RunItem) -> ItemOutcome:
        if side_file:
            # O_APPEND writes of one short line are atomic: concurrent tasks never interleave.
            fd = os.open(side_file, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, f"{item.id}\n".encode())
            finally:
                os.close(fd)
        await asyncio.sleep(sleep_s)
        record_usage("scripted", Usage(calls=1, prompt_tokens=item.input["k"]))
        digest = hashlib.sha256(item.id.encode()).hexdigest()[:12]
        return ItemOutcome(outputs={"digest": digest}, scores={"mod3": item.input["k"] % 3})

    return task


def main() -> None:
    store_path, side_file, n, sleep_s, concurrency = sys.argv[1:6]
    with RunStore(store_path) as store:
        run(items(int(n)), make_task(side_file, float(sleep_s)), store=store,
            config=config(int(n)), concurrency=int(concurrency), progress=False)


if __name__ == "__main__":
    main()
