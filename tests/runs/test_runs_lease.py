"""One process at a time on a run: a second one exits naming the holder, or waits for it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

import kill_worker
from incanon.runs import RunConfig, RunStore
from incanon.runs.store import RunBusyError

WORKER = Path(kill_worker.__file__)
N, SLEEP = 40, 0.05


def _worker(store: Path, side: Path, env: dict[str, str] | None = None) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, str(WORKER), str(store), str(side), str(N), str(SLEEP), "1"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env={**os.environ, **(env or {})},
    )


def _wait_for_lines(path: Path, count: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and len(path.read_text().split()) >= count:
            return
        time.sleep(0.05)
    raise AssertionError(f"the first worker did not start within {timeout}s")


@pytest.mark.timeout(120)
def test_a_second_process_exits_naming_the_holder(tmp_path):
    store, side = tmp_path / "runs.sqlite", tmp_path / "executed.txt"
    first = _worker(store, side)
    try:
        _wait_for_lines(side, 3)
        second = _worker(store, side)
        _, errors = second.communicate(timeout=60)
        assert second.returncode != 0
        assert f"is being run by process {first.pid} on {socket.gethostname()}" in errors
    finally:
        first.wait(timeout=90)
    assert first.returncode == 0
    executed = Counter(side.read_text().split())
    assert len(executed) == N and max(executed.values()) == 1  # no item was worked twice


@pytest.mark.timeout(120)
def test_a_second_process_can_wait_for_the_first(tmp_path):
    store, side = tmp_path / "runs.sqlite", tmp_path / "executed.txt"
    first = _worker(store, side)
    _wait_for_lines(side, 3)
    second = _worker(store, side, env={"INCANON_RUN_WAIT": "90"})
    _, errors = second.communicate(timeout=100)
    first.wait(timeout=30)
    assert first.returncode == 0 and second.returncode == 0, errors
    executed = Counter(side.read_text().split())
    assert len(executed) == N and max(executed.values()) == 1  # the waiter found everything done


def test_a_dead_holder_is_taken_over(tmp_path):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    config = RunConfig(benchmark="lease")
    with RunStore(tmp_path / "runs.sqlite") as store:
        run_id = store.create_or_resume(config).id
        with store.transaction() as db:
            db.execute("UPDATE runs SET pid = ?, status = 'running' WHERE id = ?", (dead.pid, run_id))
        info = store.create_or_resume(config)
    assert any("took over" in note for note in info.notes)


def test_a_live_holder_on_another_host_blocks_until_stale(tmp_path, monkeypatch):
    import incanon.runs.lease as lease_module

    config = RunConfig(benchmark="lease")
    with RunStore(tmp_path / "runs.sqlite") as store:
        run_id = store.create_or_resume(config).id
        with store.transaction() as db:
            db.execute("UPDATE runs SET pid = 1, host = 'elsewhere', status = 'running', updated = ? WHERE id = ?",
                       (lease_module.utcnow().isoformat(), run_id))
        with pytest.raises(RunBusyError, match="process 1 on elsewhere"):
            store.create_or_resume(config)
        monkeypatch.setattr(lease_module, "LEASE_STALE_S", 0.0)
        assert store.create_or_resume(config).id == run_id
