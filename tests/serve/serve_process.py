"""``incanon serve`` as a real process, for the tests where the process is the subject: its
event loop and interpreter lock, its signals, its lock on INCANON_HOME."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path


def start_serve(args: list[str], home: Path) -> tuple[subprocess.Popen[str], str]:
    """Start ``incanon serve --port 0 --json ARGS`` with ``INCANON_HOME=home``; returns the
    process and its URL once it listens (its stderr is left unread for the test)."""
    env = {**os.environ, "INCANON_HOME": str(home)}
    proc = subprocess.Popen([sys.executable, "-m", "incanon", "serve", "--port", "0", "--json", *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line:
        _, err = proc.communicate(timeout=30)
        raise AssertionError(f"incanon serve did not start (exit {proc.returncode}): {err}")
    return proc, json.loads(line)["url"]


def stop(proc: subprocess.Popen[str], seconds: float = 30.0) -> str:
    """End ``proc`` (SIGTERM, then SIGKILL) and return what it said on stderr."""
    if proc.poll() is None:
        proc.terminate()
    try:
        _, err = proc.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate(timeout=10)
    return err


def wait_until(check, seconds: float, what: str) -> None:  # type: ignore[no-untyped-def]
    """Poll ``check()`` until it is true, failing after ``seconds``."""
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)
