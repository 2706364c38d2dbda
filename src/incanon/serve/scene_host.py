"""The open scenes of the web app: one ``SceneSession`` per scene, each on a thread of its own.

As the chats (:mod:`incanon.serve.chats`): the shared chat model, a session on its own
:class:`~incanon.serve.workers.LoopThread` (its canon store connection is bound to that thread),
one lock per scene so two requests to one scene are answered in turn, the least recently used
scene closed beyond ``max_chats``, and every scene kept in the scenes store after each change, so
one that is not open (closed, or after a restart) is reopened from it where it was.
"""

from __future__ import annotations

import asyncio
import itertools
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from incanon.canon.store import CanonStore
from incanon.errors import ConfigError, NotFoundError
from incanon.models.types import ChatModel
from incanon.scenes import Outcome, Scene, SceneSession, ScenesStore, handle
from incanon.serve.config import ServeConfig
from incanon.serve.hosting import SharedModel
from incanon.serve.indexing import IndexJobs, retrieves
from incanon.serve.workers import LoopThread

T = TypeVar("T")
_numbers = itertools.count(1)


def scenes_store(config: ServeConfig) -> ScenesStore | None:
    """Where the app keeps scenes: beside its chats (``INCANON_HOME/scenes.sqlite`` by default,
    ``scenes.sqlite`` in the folder of ``serve --chats FILE``), or nowhere when chats are kept
    in memory only."""
    if config.chats is False:
        return None
    if config.chats is True:
        return ScenesStore()
    return ScenesStore(Path(config.chats).with_name("scenes.sqlite"))


def _open_session(config: ServeConfig, model: ChatModel, jobs: IndexJobs, restore: Scene | None,
                  kwargs: dict[str, Any]) -> SceneSession:
    """The session, opened on the calling thread; its retriever waits for the work's embedding
    job instead of embedding the book itself."""
    store = CanonStore.open(config.canon)
    try:
        common = dict(model=model, model_spec=config.model_label, embedder=config.embedder, options=config.options)
        session = (SceneSession.reopen(store, restore, **common) if restore is not None
                   else SceneSession(store, **common, **kwargs))
    except BaseException:
        store.close()
        raise
    index = session.retriever.index

    def index_after_job(work_id: str) -> Any:
        jobs.job(work_id).wait_blocking()  # blocks this scene's own thread only
        return index(work_id)

    session.retriever.index = index_after_job  # type: ignore[method-assign]
    return session


@dataclass
class OpenScene:
    """A scene's session on its thread, and the lock that serializes its lines."""

    id: str
    thread: LoopThread
    session: SceneSession
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    async def call(self, work: Callable[[SceneSession], T]) -> T:
        """Run the plain function ``work(session)`` on the scene's thread."""
        return await self.thread.call(lambda: work(self.session))

    def close(self) -> None:
        """Close the session's store on its thread and end the thread."""
        self.thread.stop(last=self.session.close)


def scene_state(scene: OpenScene) -> dict[str, Any]:
    """What the app shows of a scene: cast, position, place, order, each present character's
    scope, and every line with who heard it and its evidence (run on the scene's thread)."""
    session = scene.session
    s = session.scene
    return {
        "id": s.id, "work": s.work, "work_title": s.work_title, "at": s.at, "setting": s.setting,
        "place": session.setting.location if session.setting else "", "order": s.order, "method": s.method,
        "model": s.model, "present": list(s.present), "characters": list(s.characters),
        "scopes": {name: session.scope(name) for name in s.present},
        "lines": [line.model_dump(mode="json") for line in s.lines],
    }


class SceneRegistry:
    """Creates, finds and closes the app's scenes (see the module docstring)."""

    def __init__(self, config: ServeConfig, model: SharedModel, jobs: IndexJobs, store: ScenesStore | None) -> None:
        self.config = config
        self._model = model
        self.jobs = jobs
        self.store = store
        self._open: OrderedDict[str, OpenScene] = OrderedDict()

    async def _start(self, restore: Scene | None, **kwargs: Any) -> OpenScene:
        model = await self._model.get()
        thread = LoopThread(f"incanon-scene-{next(_numbers)}")
        try:
            session = await thread.call(lambda: _open_session(self.config, model, self.jobs, restore, kwargs))
        except BaseException:
            thread.stop()
            raise
        scene = OpenScene(id=session.scene.id, thread=thread, session=session)
        self._open[scene.id] = scene
        while len(self._open) > self.config.max_chats:
            _, oldest = self._open.popitem(last=False)
            oldest.close()  # kept in the scenes store: reopened on its next request
        if retrieves(session.scene.method, self.config.options):
            self.jobs.job(session.work)  # start embedding now: the first line needs it
        return scene

    async def open(self, *, work: str | None, characters: list[str], at: str | None, setting: str | None,
                   order: str, method: str) -> OpenScene:
        """A new scene; unknown names raise ``NotFoundError`` as the CLI's do."""
        if method not in self.config.methods:
            raise ConfigError(f"method {method!r} is not offered here; choose one of {', '.join(self.config.methods)}")
        scene = await self._start(None, work=work, characters=characters, at=at, setting=setting, order=order,
                                  method=method)
        await self._save(scene)
        return scene

    async def ensure(self, scene_id: str) -> OpenScene:
        """The scene ``scene_id``, reopened from the scenes store when it is not open."""
        if scene_id in self._open:
            self._open.move_to_end(scene_id)
            return self._open[scene_id]
        kept = None if self.store is None else await asyncio.to_thread(self.store.load, scene_id)
        if kept is None:
            raise NotFoundError(f"no scene {scene_id!r} (it was closed; start a new one)")
        return await self._start(kept)

    async def _save(self, scene: OpenScene) -> None:
        if self.store is not None:
            await asyncio.to_thread(self.store.save, scene.session.scene.model_copy(deep=True))

    def kept(self) -> list[dict[str, Any]]:
        """The kept scenes, most recently changed first."""
        return [] if self.store is None else [s.to_dict() for s in self.store.list()]

    async def state(self, scene_id: str) -> dict[str, Any]:
        """:func:`scene_state` of ``scene_id``."""
        scene = await self.ensure(scene_id)
        return await scene.call(lambda _: scene_state(scene))

    async def say(self, scene_id: str, line: str) -> Outcome:
        """Run one scene line, in turn with the scene's other requests. ``/save`` writes nothing
        on the server (the app downloads the scene instead)."""
        scene = await self.ensure(scene_id)
        if line.strip().lower().startswith("/save"):
            return Outcome("saved", "download the scene with the Save button (the server writes no files)")
        command = line.strip().split(" ", 1)[0].lower()
        answers = not command.startswith("/") or command in ("/as", "/next")
        async with scene.lock:
            if answers and retrieves(scene.session.scene.method, self.config.options):
                await self.jobs.job(scene.session.work).wait()  # a character answers: it retrieves

            async def run() -> Outcome:
                return await handle(scene.session, line)

            outcome = await scene.thread.run(run())
            await self._save(scene)
            return outcome

    def close(self, scene_id: str) -> None:
        """Close one scene and forget it."""
        scene = self._open.pop(scene_id, None)
        if scene is not None:
            scene.close()
        if self.store is not None:
            self.store.delete(scene_id)

    def close_all(self) -> None:
        """Close every scene (on shutdown) and the scenes store."""
        while self._open:
            _, scene = self._open.popitem()
            scene.thread.stop(last=scene.session.close, wait=5.0)
        if self.store is not None:
            self.store.close()
