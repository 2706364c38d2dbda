"""The open chats of the web app: one ``ChatSession`` per browser chat, created on demand.

The chat model is loaded once, on the first chat (browsing runs never loads it), and shared by
every session. Each session has its own lock, so two requests to one chat are answered in turn
while different chats run side by side. Sessions beyond ``max_chats`` are closed least recently
used first.
"""

from __future__ import annotations

import asyncio
import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from incanon.canon.store import CanonStore
from incanon.chat import ChatSession, Outcome, handle
from incanon.errors import ConfigError, NotFoundError
from incanon.models.types import ChatModel
from incanon.serve.config import ServeConfig


@dataclass
class OpenChat:
    """A session and the lock that serializes its turns."""

    id: str
    session: ChatSession
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


def chat_state(chat: OpenChat) -> dict[str, Any]:
    """What the app shows of a chat: who, when, which method, the scope and every turn."""
    session = chat.session
    who = session.who
    return {
        "id": chat.id, "work": session.work, "work_title": who.work_title, "character": who.character,
        "at": str(who.position), "time_label": who.time_label, "when": who.when, "method": session.method,
        "model": session.model_spec, "scope": session.scope(),
        "turns": [t.model_dump(mode="json") for t in session.turns],
    }


class ChatRegistry:
    """Creates, finds and closes the app's chats (see the module docstring)."""

    def __init__(self, config: ServeConfig, model: ChatModel | None = None) -> None:
        self.config = config
        self._model = model
        self._model_lock = threading.Lock()
        self._chats: OrderedDict[str, OpenChat] = OrderedDict()

    def model(self) -> ChatModel:
        """The shared chat model (loaded on first use)."""
        with self._model_lock:
            if self._model is None:
                from incanon.models import load_chat_model

                self._model = load_chat_model(self.config.model, cache=self.config.cache)
            return self._model

    async def open(self, *, character: str, at: str, method: str, work: str | None = None) -> OpenChat:
        """A new chat with ``character`` at ``at``; unknown names raise ``NotFoundError``.
        Runs on the event loop (the session's canon store is bound to its thread); the first
        chat loads the model in a worker thread so other requests are served meanwhile."""
        if method not in self.config.methods:
            raise ConfigError(f"method {method!r} is not offered here; choose one of {', '.join(self.config.methods)}")
        model = await asyncio.to_thread(self.model)
        store = CanonStore.open(self.config.canon)
        try:
            session = ChatSession(store, character=character, at=at, method=method, work=work, model=model,
                                  model_spec=self.config.model_label, embedder=self.config.embedder,
                                  options=self.config.options)
        except BaseException:
            store.close()
            raise
        chat = OpenChat(id=secrets.token_urlsafe(12), session=session)
        self._chats[chat.id] = chat
        while len(self._chats) > self.config.max_chats:
            _, oldest = self._chats.popitem(last=False)
            oldest.session.close()
        return chat

    def get(self, chat_id: str) -> OpenChat:
        """The open chat ``chat_id``; ``NotFoundError`` when it was closed or never existed."""
        chat = self._chats.get(chat_id)
        if chat is None:
            raise NotFoundError(f"no open chat {chat_id!r} (it was closed; start a new one)")
        self._chats.move_to_end(chat_id)  # least recently used first: the order is the LRU list
        return chat

    def close(self, chat_id: str) -> None:
        """Close one chat (its canon store connection too)."""
        chat = self._chats.pop(chat_id, None)
        if chat is not None:
            chat.session.close()

    def close_all(self) -> None:
        """Close every chat (on shutdown)."""
        while self._chats:
            _, chat = self._chats.popitem()
            chat.session.close()

    async def say(self, chat_id: str, line: str) -> Outcome:
        """Run one chat line (text or a slash command) in turn with the chat's other requests.
        ``/save`` writes nothing on the server: the app downloads the transcript instead."""
        chat = self.get(chat_id)
        if line.strip().lower().startswith("/save"):
            return Outcome("saved", "download the conversation with the Save button (the server writes no files)")
        command, _, arg = line.strip().partition(" ")
        if command.lower() == "/method" and arg.strip() and arg.strip() not in self.config.methods:
            return Outcome("error", f"method {arg.strip()!r} is not offered here; choose one of "
                                    f"{', '.join(self.config.methods)}")
        async with chat.lock:
            return await handle(chat.session, line)
