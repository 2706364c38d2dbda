"""The open chats of the web app: one ``ChatSession`` per browser chat, created on demand.

The chat model is loaded once, on the first chat (browsing runs never loads it), and shared by
every session. Each session lives on a thread of its own (:mod:`incanon.serve.hosting`), so its
canon store reads never hold up the server; each has its own lock, so two requests to one chat
are answered in turn while different chats run side by side. Sessions beyond ``max_chats`` are
closed least recently used first. Every chat is also kept in the chat store
(:mod:`incanon.serve.chat_store`): one that is not open (closed as least recently used, or
after a restart) is reopened from it where it was.
"""

from __future__ import annotations

import asyncio
import secrets
import sqlite3
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from incanon.chat import ChatSession, Outcome, handle
from incanon.errors import ConfigError, IncanonError, NotFoundError, NoSpaceError, WriteError
from incanon.models.types import ChatModel
from incanon.serve.chat_store import ChatStore, SavedChat
from incanon.serve.config import ServeConfig
from incanon.serve.hosting import SessionHost, SharedModel
from incanon.serve.indexing import IndexJobs, retrieves


@dataclass
class OpenChat:
    """A hosted session and the lock that serializes its turns."""

    id: str
    host: SessionHost
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    @property
    def session(self) -> ChatSession:
        """The chat's session (touch its store only through ``host``)."""
        return self.host.session


def chat_state(chat: OpenChat) -> dict[str, Any]:
    """What the app shows of a chat: who, when, which method, the scope and every turn, and
    ``preparing`` (the work's first embedding while the chat's method waits for it). Reads the
    canon store: run it on the chat's thread (``ChatRegistry.state``)."""
    session = chat.session
    who = session.who
    return {
        "id": chat.id, "work": session.work, "work_title": who.work_title, "character": who.character,
        "at": str(who.position), "time_label": who.time_label, "when": who.when, "method": session.method,
        "model": session.model_spec, "scope": session.scope(),
        "turns": [t.model_dump(mode="json") for t in session.turns],
        "preparing": chat.host.preparing(),
    }


class ChatRegistry:
    """Creates, finds and closes the app's chats (see the module docstring)."""

    def __init__(self, config: ServeConfig, model: SharedModel, jobs: IndexJobs,
                 store: ChatStore | None = None) -> None:
        self.config = config
        self._model = model
        self.jobs = jobs
        self.store = store
        """Where chats are kept (None: in memory only)."""
        self._chats: OrderedDict[str, OpenChat] = OrderedDict()
        self._reopening: dict[str, asyncio.Future[OpenChat]] = {}

    def model(self) -> ChatModel:
        """The shared chat model (loaded on first use)."""
        return self._model.load()

    async def open(self, *, character: str, at: str, method: str, work: str | None = None) -> OpenChat:
        """A new chat with ``character`` at ``at``; unknown names raise ``NotFoundError``. The
        model loads in a worker thread and the session opens on its own thread, so other
        requests are served meanwhile; a method that retrieves starts the work's embedding."""
        if method not in self.config.methods:
            raise ConfigError(f"method {method!r} is not offered here; choose one of {', '.join(self.config.methods)}")
        model = await self._model.get()
        host = await SessionHost.open(self.config, model, self.jobs, character=character, at=at, method=method,
                                      work=work)
        chat = OpenChat(id=secrets.token_urlsafe(12), host=host)
        self._keep(chat)
        await self._save(chat)
        return chat

    def _keep(self, chat: OpenChat) -> None:
        self._chats[chat.id] = chat
        while len(self._chats) > self.config.max_chats:
            _, oldest = self._chats.popitem(last=False)
            oldest.host.close()  # kept in the chat store: reopened on its next request

    async def _save(self, chat: OpenChat) -> None:
        if self.store is None:
            return
        session = chat.session
        await asyncio.to_thread(self.store.save, chat.id, work=session.work, character=session.who.character,
                                at=str(session.who.position), method=session.method,
                                transcript=session.transcript.model_copy(deep=True))

    async def _kept(self, chat: OpenChat, before: Any) -> None:
        """Save ``chat`` after a turn. When the chat store cannot take it (a full disk, a
        read-only file), the chat goes back to ``before`` (its transcript before the turn) and
        the error tells the page the turn was not kept: a resend then adds it once, not twice."""
        try:
            await self._save(chat)
        except (sqlite3.Error, OSError, IncanonError) as exc:
            from incanon.oserrors import user_error

            mapped = exc if isinstance(exc, IncanonError) else user_error(exc)
            if mapped is None:
                raise

            def restore(session: Any) -> None:
                session.transcript = before

            await chat.host.call(restore)
            kind = NoSpaceError if isinstance(mapped, NoSpaceError) else WriteError
            why = "its disk is full" if kind is NoSpaceError else "it cannot be written"
            raise kind(f"this turn was not kept: the chat store could not save it ({why}); the chat is as it "
                       "was before it. Free some space, then send the line again") from None

    async def _before(self, chat: OpenChat) -> Any:
        """A copy of the chat's transcript, to go back to when a turn cannot be kept."""
        if self.store is None:
            return None
        return await chat.host.call(lambda session: session.transcript.model_copy(deep=True))

    def get(self, chat_id: str) -> OpenChat:
        """The open chat ``chat_id``; ``NotFoundError`` when it is not open (see ``ensure``)."""
        chat = self._chats.get(chat_id)
        if chat is None:
            raise NotFoundError(f"no open chat {chat_id!r} (it was closed; start a new one)")
        self._chats.move_to_end(chat_id)  # least recently used first: the order is the LRU list
        return chat

    async def ensure(self, chat_id: str) -> OpenChat:
        """The chat ``chat_id``, reopened from the chat store where it was when it is not open;
        ``NotFoundError`` when it was closed or never existed."""
        if chat_id in self._chats:
            return self.get(chat_id)
        saved = None if self.store is None else await asyncio.to_thread(self.store.load, chat_id)
        if saved is None:
            raise NotFoundError(f"no chat {chat_id!r} (it was closed; start a new one)")
        pending = self._reopening.get(chat_id)
        if pending is None:
            # Two requests for one closed chat reopen it once.
            pending = self._reopening[chat_id] = asyncio.ensure_future(self._reopen(*saved))
            pending.add_done_callback(lambda _: self._reopening.pop(chat_id, None))
        return await asyncio.shield(pending)

    async def _reopen(self, saved: SavedChat, transcript: Any) -> OpenChat:
        model = await self._model.get()
        method = saved.method if saved.method in self.config.methods else self.config.methods[0]
        host = await SessionHost.open(self.config, model, self.jobs, character=saved.character, at=saved.at,
                                      method=method, work=saved.work)

        def restore(session: Any) -> None:
            session.transcript = transcript

        await host.call(restore)
        chat = OpenChat(id=saved.id, host=host)
        self._keep(chat)
        return chat

    def saved(self) -> list[dict[str, Any]]:
        """The kept chats, most recently used first (what ``GET /api/chats`` lists)."""
        return [] if self.store is None else [c.to_dict() for c in self.store.list()]

    async def state(self, chat_id: str) -> dict[str, Any]:
        """:func:`chat_state` of ``chat_id``, read on the chat's thread."""
        chat = await self.ensure(chat_id)
        return await chat.host.call(lambda _: chat_state(chat))

    def close(self, chat_id: str) -> None:
        """Close one chat and forget it (its canon store connection closes once its requests end)."""
        chat = self._chats.pop(chat_id, None)
        if chat is not None:
            chat.host.close()
        if self.store is not None:
            self.store.delete(chat_id)

    def close_all(self) -> None:
        """Close every chat (on shutdown)."""
        while self._chats:
            _, chat = self._chats.popitem()
            chat.host.close_now()

    async def say(self, chat_id: str, line: str) -> Outcome:
        """Run one chat line (text or a slash command) in turn with the chat's other requests.
        ``/save`` writes nothing on the server: the app downloads the transcript instead. A
        line the method answers waits, first, for the work's embedding when it retrieves."""
        chat = await self.ensure(chat_id)
        if line.strip().lower().startswith("/save"):
            return Outcome("saved", "download the conversation with the Save button (the server writes no files)")
        command, _, arg = line.strip().partition(" ")
        if command.lower() == "/method" and arg.strip() and arg.strip() not in self.config.methods:
            return Outcome("error", f"method {arg.strip()!r} is not offered here; choose one of "
                                    f"{', '.join(self.config.methods)}")
        async with chat.lock:
            if not line.strip().startswith("/"):
                await chat.host.ready()
            elif command.lower() == "/method" and arg.strip():
                if retrieves(arg.strip(), self.config.options):
                    self.jobs.job(chat.session.work)  # start embedding now: the next line needs it
            before = await self._before(chat)
            outcome = await chat.host.run(lambda session: handle(session, line))
            await self._kept(chat, before)
            return outcome

    async def regenerate(self, chat_id: str) -> Outcome:
        """A new reply to the chat's last line, in place of the last reply (which the method
        does not see): ``ChatSession.regenerate``, in turn with the chat's other requests."""
        chat = await self.ensure(chat_id)
        async with chat.lock:
            await chat.host.ready()
            before = await self._before(chat)
            outcome = Outcome("reply", turn=await chat.host.run(lambda session: session.regenerate()))
            await self._kept(chat, before)
            return outcome
