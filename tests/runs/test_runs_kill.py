"""kill -9 in the middle of a run: no half-written or duplicate samples, no finished item redone."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

import kill_worker
from runs_testutil import ok_count
from incanon.runs import RunStore, run

WORKER = Path(kill_worker.__file__)
N, SLEEP, CONCURRENCY = 200, 0.01, 4




def _worker(store: Path, side: Path, sleep: float = SLEEP) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, str(WORKER), str(store), str(side), str(N), str(sleep), str(CONCURRENCY)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        # A test worker (pytest-xdist) may ignore SIGINT, and a child inherits that: restore the
        # default so the worker's Python turns Ctrl-C into KeyboardInterrupt.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def _results(store: RunStore, run_id: str) -> dict[str, tuple]:
    return {s.item_id: (s.status, s.outputs, s.scores, s.usage.prompt_tokens)
            for s in store.samples(run_id)}


@pytest.mark.timeout(120)
def test_kill_9_then_resume(tmp_path: Path):
    store_path, side = tmp_path / "runs.sqlite", tmp_path / "executed.txt"

    proc = _worker(store_path, side)
    deadline = time.monotonic() + 60
    while ok_count(store_path) < 40:
        assert proc.poll() is None, proc.stderr.read().decode()
        assert time.monotonic() < deadline, "worker made no progress"
        time.sleep(0.005)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL

    with RunStore(store_path, create=False) as store:
        run_id = kill_worker.config(N).run_id
        assert store.get_run(run_id).status == "interrupted"  # its process is gone
        finished_before_kill = {item for item, _ in store.done_ids(run_id)}
    assert 40 <= len(finished_before_kill) < N, "the kill came too late to test anything"
    with sqlite3.connect(store_path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"

    proc = _worker(store_path, side)
    assert proc.wait(timeout=60) == 0, proc.stderr.read().decode()

    executions = Counter(side.read_text().split())
    assert set(executions) == {f"item-{k:03d}" for k in range(N)}
    for item in finished_before_kill:
        assert executions[item] == 1, f"{item} finished before the kill but ran again"
    # Only items in flight at the kill may have run twice.
    assert sum(executions.values()) <= N + CONCURRENCY

    with sqlite3.connect(store_path) as db:
        (rows, distinct) = db.execute(
            "SELECT COUNT(*), COUNT(DISTINCT run_id || '/' || item_id || '/' || epoch) FROM samples"
        ).fetchone()
    assert rows == distinct == N

    with RunStore(store_path, create=False) as store:
        resumed = _results(store, run_id)
        info = store.get_run(run_id)
        assert (info.status, info.ok, info.failed) == ("finished", N, 0)

    with RunStore(tmp_path / "clean.sqlite") as clean:
        run(kill_worker.items(N), kill_worker.make_task(None, 0), store=clean,
            config=kill_worker.config(N), concurrency=CONCURRENCY, progress=False)
        assert _results(clean, run_id) == resumed


@pytest.mark.timeout(120)
def test_ctrl_c_marks_run_interrupted(tmp_path: Path):
    store_path, side = tmp_path / "runs.sqlite", tmp_path / "executed.txt"
    # Slower items than the kill test's: the whole run must still be going when Ctrl-C comes,
    # even when a loaded machine wakes this poller late (at 0.01 s a run of 200 could finish first).
    # 0.25 s per item at concurrency 4: the run lasts about 12 s, so a poller starved by a
    # loaded machine for seconds still sends Ctrl-C while it is going.
    proc = _worker(store_path, side, sleep=0.25)
    deadline = time.monotonic() + 60
    while ok_count(store_path) < 20:
        assert proc.poll() is None, proc.stderr.read().decode()
        assert time.monotonic() < deadline, "worker made no progress"
        time.sleep(0.005)
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=30)
    assert "KeyboardInterrupt" in proc.stderr.read().decode()
    with sqlite3.connect(store_path) as db:
        (status, totals) = db.execute("SELECT status, totals FROM runs").fetchone()
        recorded = db.execute("SELECT COUNT(*) FROM samples").fetchone()[0]
    assert status == "interrupted"  # written by the runner itself, not inferred from a dead pid
    assert '"sessions": 1' in totals and 20 <= recorded < N
    proc = _worker(store_path, side)
    assert proc.wait(timeout=60) == 0
    assert ok_count(store_path) == N
