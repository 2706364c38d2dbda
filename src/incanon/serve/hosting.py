"""A chat session on a thread of its own, so its canon store reads never block the server.

A :class:`~incanon.chat.ChatSession` holds a canon store connection, bound to the thread that
opened it, and its methods mix synchronous SQLite reads and embedding with awaited model calls.
:class:`SessionHost` opens the session on a :class:`~incanon.serve.workers.LoopThread` and runs
everything that touches it there: several requests to one session interleave on that loop
(their model calls run on the model thread meanwhile), requests to other sessions run on theirs.

The session is built exactly as before (the scoped builder makes the character at the point);
only where it runs changes.
"""

from __future__ import annotations

import asyncio
import itertools
import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from incanon.canon.store import CanonStore
from incanon.chat import ChatSession
from incanon.models.types import ChatModel
from incanon.serve.config import ServeConfig
from incanon.serve.indexing import IndexJobs, retrieves
from incanon.serve.workers import LoopThread, OnLoopModel

T = TypeVar("T")

_numbers = itertools.count(1)


def _open_session(config: ServeConfig, model: ChatModel, jobs: IndexJobs, *, character: str, at: str,
                  method: str, work: str | None) -> ChatSession:
    """The session, opened on the calling thread; its retriever waits for the work's embedding
    job instead of embedding the book itself."""
    store = CanonStore.open(config.canon)
    try:
        session = ChatSession(store, character=character, at=at, method=method, work=work, model=model,
                              model_spec=config.model_label, embedder=config.embedder, options=config.options)
    except BaseException:
        store.close()
        raise
    retriever = session.retriever
    index = retriever.index

    def index_after_job(work_id: str) -> Any:
        # The book is embedded once, by the app's background job; what is left to do here is
        # noting that it is (nothing to embed). Blocking is this session's own thread only.
        jobs.job(work_id).wait_blocking()
        return index(work_id)

    retriever.index = index_after_job  # type: ignore[method-assign]
    return session


class SessionHost:
    """A :class:`ChatSession` living on its own thread (see the module docstring). Create it
    with :meth:`open`; run work on it with :meth:`run` and :meth:`call`."""

    def __init__(self, thread: LoopThread, session: ChatSession, jobs: IndexJobs) -> None:
        self.thread = thread
        self.session = session
        self.jobs = jobs
        self._busy = 0
        self._closing = False

    @classmethod
    async def open(cls, config: ServeConfig, model: ChatModel, jobs: IndexJobs, *, character: str, at: str,
                   method: str, work: str | None = None) -> "SessionHost":
        """Open a session on a new thread; unknown characters or positions raise as
        ``ChatSession`` does (and the thread ends). A method that retrieves starts the work's
        embedding job now, in the background."""
        thread = LoopThread(f"incanon-chat-{next(_numbers)}")
        try:
            session = await thread.call(lambda: _open_session(config, model, jobs, character=character, at=at,
                                                              method=method, work=work))
        except BaseException:
            thread.stop()
            raise
        host = cls(thread, session, jobs)
        if retrieves(method, config.options):
            jobs.job(session.work)
        return host

    def preparing(self) -> dict[str, Any] | None:
        """The embedding job this session's method waits for while it runs, else None."""
        if not retrieves(self.session.method, self.session.options):
            return None
        job = self.jobs.find(self.session.work)
        return job.describe() if job is not None and job.state != "ready" else None

    async def ready(self) -> None:
        """Wait (without blocking the loop) until the session's method can retrieve: the work
        is embedded. At once for methods that do not retrieve."""
        if retrieves(self.session.method, self.session.options):
            await self.jobs.job(self.session.work).wait()

    async def run(self, work: Callable[[ChatSession], Awaitable[T]]) -> T:
        """Run ``work(session)`` (a coroutine function) on the session's thread."""
        self._busy += 1
        try:
            async def on_thread() -> T:
                return await work(self.session)

            return await self.thread.run(on_thread())
        finally:
            self._busy -= 1
            if self._closing and not self._busy:
                self._stop()

    async def call(self, work: Callable[[ChatSession], T]) -> T:
        """Run the plain function ``work(session)`` on the session's thread."""

        async def as_coroutine(session: ChatSession) -> T:
            return work(session)

        return await self.run(as_coroutine)

    def close(self) -> None:
        """Close the session (its store, on its thread) once the requests running on it end."""
        self._closing = True
        if not self._busy:
            self._stop()

    def _stop(self, wait: float = 0.0) -> None:
        self.thread.stop(last=self.session.close, wait=wait)

    def close_now(self, wait: float = 5.0) -> None:
        """Close at once (shutdown), waiting up to ``wait`` s for the thread."""
        self._closing = True
        self._stop(wait)


class SharedModel:
    """The app's one chat model: loaded on first use, in a worker thread (browsing runs never
    loads it), and called on a model thread of its own through
    :class:`~incanon.serve.workers.OnLoopModel`, whichever session's thread asks."""

    def __init__(self, config: ServeConfig, model: ChatModel | None = None) -> None:
        self.config = config
        self._raw = model
        self._wrapped: ChatModel | None = None
        self._thread: LoopThread | None = None
        self._lock = threading.Lock()

    def load(self) -> ChatModel:
        """The model as sessions call it (loaded now if it was not yet); thread-safe."""
        with self._lock:
            if self._wrapped is None:
                if self._raw is None:
                    from incanon.models import load_chat_model

                    self._raw = load_chat_model(self.config.model, cache=self.config.cache)
                self._thread = LoopThread("incanon-models")
                self._wrapped = OnLoopModel(self._raw, self._thread)
            return self._wrapped

    async def get(self) -> ChatModel:
        """:meth:`load` without blocking the loop."""
        if self._wrapped is not None:
            return self._wrapped
        return await asyncio.to_thread(self.load)

    def close(self) -> None:
        """Stop the model thread."""
        if self._thread is not None:
            self._thread.stop(wait=2.0)
