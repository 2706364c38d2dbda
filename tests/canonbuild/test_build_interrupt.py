"""Ctrl-C stops a build at once, says how to resume, and the rerun resumes; a cancelled embedded
generation stops between two tokens instead of writing to the end of its budget."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from incanon.models.llama import LlamaChatModel, _Shared
from incanon.models.types import Message
from tests.canonbuild import build_driver
from tests.canonbuild.build_driver import logged

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "examples" / "book" / "saltmere.txt"
RULES = ROOT / "examples" / "book" / "helper.json"
DRIVER = Path(build_driver.__file__)
RESUME = "interrupted: run the same command again to resume (the helper's answers so far are in the response cache"


class _EndlessLlama:
    """A llama whose streamed reply never ends by itself (a small model repeating one speaker)."""

    def __init__(self) -> None:
        self.pieces = 0
        self.closed = threading.Event()
        self.input_ids = [0] * 4096

    def n_ctx(self) -> int:
        return 4096

    def tokenize(self, data: bytes, add_bos: bool = True, special: bool = False) -> list[int]:
        return list(range(len(data.split())))

    def create_chat_completion(self, **kwargs: Any) -> Iterator[dict[str, Any]]:
        assert kwargs.get("stream"), "a cancellable call must stream"
        try:
            while True:
                time.sleep(0.002)
                self.pieces += 1
                yield {"choices": [{"delta": {"content": "Mara "}, "finish_reason": None}]}
        finally:
            self.closed.set()


async def test_a_cancelled_embedded_generation_stops_between_tokens() -> None:
    llama = _EndlessLlama()
    model = object.__new__(LlamaChatModel)  # no GGUF file: the llama is the fake above
    model.path, model.endpoint = Path("fake.gguf"), "gguf:fake-for-cancel"
    model._shared = lambda: _Shared(llama, threading.Lock())  # type: ignore[method-assign]
    call = asyncio.create_task(model.generate([Message(role="user", content="Split the chapter.")]))
    while llama.pieces < 5:
        assert not call.done(), call.exception()
        await asyncio.sleep(0.01)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    # Without the stop, the worker thread would write forever (and asyncio.run wait for it).
    assert await asyncio.to_thread(llama.closed.wait, 30)
    stopped_at = llama.pieces
    await asyncio.sleep(0.1)
    assert llama.pieces == stopped_at


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # a test runner started in the background ignores it


def _responses(cache: Path) -> int:
    if not cache.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{cache}?mode=ro", uri=True, timeout=5) as db:
            return int(db.execute("SELECT COUNT(*) FROM responses").fetchone()[0])
    except sqlite3.OperationalError:
        return 0  # not made yet


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_ctrl_c_during_the_helper_calls_exits_130_and_the_rerun_resumes(tmp_path: Path) -> None:
    cache = tmp_path / "cache.sqlite"
    args = [sys.executable, "-m", "incanon", "canon", "build", str(BOOK), "--store", str(tmp_path / "canon"),
            "--helper", f"slow:{RULES}?seconds=0.5", "--cache", str(cache), "--embedder", "none", "--json"]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_default_sigint)
    deadline = time.monotonic() + 120
    while _responses(cache) < 3:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "no helper answer came"
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert err.strip().splitlines()[-1].startswith(RESUME) and "Traceback" not in err
    answered = _responses(cache)
    assert answered >= 3
    rerun = subprocess.run(args, capture_output=True, text=True, timeout=180)
    assert rerun.returncode == 0, rerun.stderr
    assert json.loads(rerun.stdout)["helper"]["cached_calls"] >= answered


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_ctrl_c_during_a_long_embedding_batch_in_the_graph_stage_stops_it(tmp_path: Path) -> None:
    """The graph stage embeds inside its event loop, where asyncio's own Ctrl-C only cancels the
    task at its next await: a batch of a slow embedder (30 s here), and every batch after it,
    ran to its end first."""
    log = tmp_path / "embedded.log"
    args = [sys.executable, str(DRIVER), "canon", "build", str(BOOK), "--store", str(tmp_path / "canon"),
            "--helper", f"scripted:{RULES}", "--cache", str(tmp_path / "cache.sqlite"),
            "--embedder", f"recording:{log}?batch_size=2&delay=30"]
    env = {**os.environ, "INCANON_HOME": str(tmp_path / "home")}
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=_default_sigint)
    assert proc.stderr is not None
    seen = []
    while not any(line.startswith("graph: extracting") for line in seen):
        line = proc.stderr.readline()
        assert line, "".join(seen)  # the build ended before its graph stage
        seen.append(line)
    time.sleep(3)  # the scripted extraction takes a fraction of that: now inside the first batch
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=20)  # before the batch could have ended by itself
    assert proc.returncode == 130 and RESUME in err, "".join(seen) + err
    assert logged(log) == []


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_ctrl_c_stops_a_build_with_the_embedded_helper_within_seconds(tmp_path: Path) -> None:
    """Reported: `--helper embedded` went on for minutes after Ctrl-C (3 minutes here, 70 s there)."""
    from incanon.models.gguf import locate_default_gguf

    if locate_default_gguf() is None:
        pytest.skip("default GGUF not installed")
    args = [sys.executable, "-m", "incanon", "canon", "build", str(BOOK), "--store", str(tmp_path / "canon"),
            "--helper", "embedded", "--cache", str(tmp_path / "cache.sqlite"), "--embedder", "none", "--no-graph"]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_default_sigint)
    assert proc.stderr is not None
    seen = []
    while not any(line.startswith("scenes: splitting") for line in seen):
        line = proc.stderr.readline()
        assert line, "".join(seen)
        seen.append(line)
    time.sleep(15)  # the model is loaded and writing its first split (each takes minutes here)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130 and RESUME in err, "".join(seen) + err
