"""Web app latency on a large run: how fast the run browser answers over real HTTP.

Prints figures; not a test. Writes one run of N samples (TimeChara-shaped: a data type, a
question, an answer, three scores, two rationales, three calls) with the runner into a fresh run
store, serves the app on 127.0.0.1 from a thread, and times requests with httpx: the run list,
the first sample page (read from the store), the same page again (kept in memory), a filtered
page, a text search, one sample, and the run's report (tables and drawn charts), cold and warm.

    .venv/bin/python benchmarks/serve.py [--samples 20000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import asyncio
import platform
import statistics
import tempfile
import time
from pathlib import Path

import httpx

from incanon import __version__
from incanon.runs import ItemOutcome, RunConfig, RunItem, RunStore, run_items
from incanon.serve import BackgroundServer, ServeConfig

TYPES = ("future", "past-absence", "past-presence", "past-only")


async def _fill(path: Path, n: int) -> str:
    async def task(item: RunItem) -> ItemOutcome:
        i = item.input["i"]
        answer = f"I was at the harbour that night ({i})."
        calls = [{"step": step, "messages": [{"role": "user", "content": item.input["question"]}], "output": answer}
                 for step in ("temporal-expert", "spatial-expert", "answer")]
        return ItemOutcome(outputs={"answer": answer}, scores={"spatiotemporal": i % 3 == 0, "temporal": i % 2 == 0,
                                                                "personality": 1 + i % 7},
                           extra={"temporal_rationale": "It stays before the flood.", "personality_rationale": "Fits.",
                                  "calls": calls})

    items = (RunItem(id=f"{i:06d}", input={"i": i, "data_type": TYPES[i % 4],
                                          "question": f"Were you there when the bell rang, time {i}?"})
             for i in range(n))
    with RunStore(path) as store:
        result = await run_items(items, task, config=RunConfig(benchmark="timechara", task="latency benchmark",
                                                        methods=["zero-shot"], models={"agent": "scripted"}),
                                 store=store, concurrency=64, progress=False)
    return result.run_id


def _time(client: httpx.Client, url: str, repeat: int, **params) -> tuple[float, float, int]:
    """(first ms, median of the next ``repeat`` ms, bytes)."""
    start = time.perf_counter()
    response = client.get(url, params=params)
    response.raise_for_status()
    first = (time.perf_counter() - start) * 1000
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        client.get(url, params=params).raise_for_status()
        times.append((time.perf_counter() - start) * 1000)
    return first, statistics.median(times) if times else first, len(response.content)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"incanon {__version__}, Python {platform.python_version()}, {platform.machine()}")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        start = time.perf_counter()
        run_id = asyncio.run(_fill(root / "runs.sqlite", args.samples))
        print(f"wrote {args.samples} samples in {time.perf_counter() - start:.1f} s")
        config = ServeConfig(canon=root / "no-canon", runs=root / "runs.sqlite", cache=False)
        with BackgroundServer(config) as base, httpx.Client(base_url=base, timeout=600) as client:
            rows = [
                ("run list", "api/runs", {}),
                ("sample page (limit 50)", f"api/runs/{run_id}/samples", {"limit": 50}),
                ("filtered page (type=future)", f"api/runs/{run_id}/samples", {"type": "future", "limit": 50}),
                ("text search (q=time 1999)", f"api/runs/{run_id}/samples", {"q": "time 1999"}),
                ("last page (offset N-50)", f"api/runs/{run_id}/samples", {"offset": args.samples - 50, "limit": 50}),
                ("one sample", f"api/runs/{run_id}/sample", {"item": f"{args.samples // 2:06d}"}),
                ("report (tables + charts)", "api/report", {"run": run_id}),
            ]
            print(f"{'request':32} {'first ms':>10} {'median ms':>10} {'bytes':>10}")
            for name, url, params in rows:
                first, median, size = _time(client, url, args.repeat, **params)
                print(f"{name:32} {first:10.1f} {median:10.1f} {size:10d}")


if __name__ == "__main__":
    main()
