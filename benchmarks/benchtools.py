"""What several benchmarks share: another commit's source to measure beside this tree's
("before" and "after" from one run), and a machine kept busy by CPU-bound processes."""

from __future__ import annotations

import io
import multiprocessing as mp
import subprocess
import tarfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def commit_source(rev: str, dest: Path) -> Path:
    """``src/`` of commit ``rev``, written under ``dest``; put it first on ``PYTHONPATH`` to run
    that commit's incanon with this checkout's environment."""
    blob = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "src"], capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(blob)) as tar:
        tar.extractall(dest, filter="data")
    return dest / "src"


def _spin(_: int) -> None:
    x = 0
    while True:
        x += 1


@contextmanager
def busy_machine(processes: int) -> Iterator[None]:
    """``processes`` CPU-bound processes running for the ``with`` block (the shared-machine case)."""
    spinners = [mp.Process(target=_spin, args=(i,), daemon=True) for i in range(processes)]
    for p in spinners:
        p.start()
    try:
        yield
    finally:
        for p in spinners:
            p.terminate()
