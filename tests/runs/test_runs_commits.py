"""Group commit: samples share transactions, yet a sample is done only once it is committed."""

from __future__ import annotations

import asyncio
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

import kill_worker
from incanon.runs import ItemOutcome, RunItem, RunStore, run, run_items
from incanon.runs.commits import GroupCommit
from runs_testutil import make_items, ok_count

WORKER = Path(kill_worker.__file__)


class CountingStore(RunStore):
    """A run store that counts its write transactions and can be made to fail."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.batches: list[int] = []
        self.fail: Exception | None = None

    def record_many(self, samples):
        if self.fail is not None:
            raise self.fail
        self.batches.append(len(samples))
        super().record_many(samples)


def _task(sleep_s: float = 0.0):
    async def task(item: RunItem) -> ItemOutcome:
        await asyncio.sleep(sleep_s)
        return ItemOutcome(outputs={"x": item.input["x"]}, scores={"x": item.input["x"]})

    return task


def test_concurrent_samples_share_transactions(tmp_path: Path, config):
    with CountingStore(tmp_path / "runs.sqlite") as store:
        result = run(make_items(200), _task(), store=store, config=config, concurrency=16, progress=False)
        assert result.ok == 200
        assert sum(store.batches) == 200
        assert max(store.batches) > 1  # workers finishing together commit together
        assert len(store.batches) <= 200 // 4
        assert store.get_run(result.run_id).ok == 200
        stored = {s.item_id: s.outputs for s in store.samples(result.run_id)}
    assert stored == {f"i{k:04d}": {"x": k} for k in range(200)}


def test_a_batch_never_holds_more_samples_than_workers(tmp_path: Path, config):
    # Each worker waits for its own commit before pulling the next item: what is not yet in the
    # store (and would be run again after a kill) is never more than the workers.
    with CountingStore(tmp_path / "runs.sqlite") as store:
        run(make_items(300), _task(0.001), store=store, config=config, concurrency=8, progress=False)
        assert sum(store.batches) == 300 and max(store.batches) <= 8


def test_counted_only_once_committed(tmp_path: Path, config):
    with CountingStore(tmp_path / "runs.sqlite") as store:
        store.fail = sqlite3.OperationalError("disk I/O error")
        with pytest.raises(sqlite3.OperationalError):
            run(make_items(20), _task(), store=store, config=config, concurrency=4, progress=False)
        run_id = config.run_id
        assert store.done_ids(run_id) == set()  # nothing committed, so nothing is done
        store.fail = None
        again = run(make_items(20), _task(), store=store, config=config, concurrency=4, progress=False)
        assert (again.ran, again.skipped, again.ok) == (20, 0, 20)


def test_group_commit_errors_reach_every_waiting_worker(tmp_path: Path):
    async def main() -> list[object]:
        with CountingStore(tmp_path / "runs.sqlite") as store:
            store.fail = RuntimeError("store gone")
            commit = GroupCommit(store)
            from incanon.runs.records import SampleRecord

            samples = [SampleRecord(run_id="r", item_id=f"i{k}", input_hash="-") for k in range(3)]
            return await asyncio.gather(*(commit.commit(s) for s in samples), return_exceptions=True)

    results = asyncio.run(main())
    assert [str(r) for r in results] == ["store gone"] * 3




@pytest.mark.timeout(240)
def test_repeated_kill_9_with_group_commit(tmp_path: Path):
    """Killed again and again mid-run at 16 workers (batches of several samples): every
    committed sample is never run again, nothing is lost or stored twice."""
    n, sleep_s, concurrency, kills = 600, 0.002, 16, 6
    store_path, side = tmp_path / "runs.sqlite", tmp_path / "executed.txt"
    rng = random.Random(7)
    args = [sys.executable, str(WORKER), str(store_path), str(side), str(n), str(sleep_s), str(concurrency)]
    committed_at_kill: list[set[str]] = []
    seen_lines = 0
    runs: list[list[str]] = []  # the items each process started, in order
    for k in range(kills):
        target = (k + 1) * n // (kills + 2) + rng.randint(0, 20)
        proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while ok_count(store_path) < target:
            assert proc.poll() is None, proc.stderr.read().decode()
            assert time.monotonic() < deadline, "worker made no progress"
            time.sleep(0.002)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        lines = side.read_text().split()
        runs.append(lines[seen_lines:])
        seen_lines = len(lines)
        with RunStore(store_path, create=False) as store:
            committed_at_kill.append({item for item, _ in store.done_ids(kill_worker.config(n).run_id)})
    assert len(committed_at_kill[-1]) < n, "the kills came too late to test anything"

    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.wait(timeout=120) == 0, proc.stderr.read().decode()
    runs.append(side.read_text().split()[seen_lines:])

    executions = Counter(item for started in runs for item in started)
    assert set(executions) == {f"item-{k:03d}" for k in range(n)}
    # A sample committed before a kill is never run again by a later process ...
    for k, committed in enumerate(committed_at_kill):
        later = {item for started in runs[k + 1:] for item in started}
        assert not committed & later, sorted(committed & later)[:5]
    # ... and what a kill makes run again is only what was not committed: at most one per worker.
    assert sum(executions.values()) <= n + kills * concurrency
    with sqlite3.connect(store_path) as db:
        rows, distinct = db.execute(
            "SELECT COUNT(*), COUNT(DISTINCT run_id || '/' || item_id || '/' || epoch) FROM samples").fetchone()
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert rows == distinct == n
    with RunStore(store_path, create=False) as store:
        info = store.get_run(kill_worker.config(n).run_id)
        assert (info.status, info.ok, info.failed) == ("finished", n, 0)
