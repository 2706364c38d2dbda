"""The web app's chats, kept in SQLite so a server restart loses none.

Each chat is one row: its id, work, character, where the character stands now, the method
answering now, and its whole transcript (``incanon-chat/1``, the format ``/save`` writes). A row
is written after every change (a new chat, a line, a regenerated reply, a move, a method switch),
in one statement, so a crash loses at most the turn being answered. A chat that is not open
(after a restart, or closed as least recently used) is reopened from its row where it was:
same position, same method, every turn. Closing a chat in the app deletes its row.

The file is ``INCANON_HOME/chats.sqlite`` unless ``incanon serve --chats`` names another.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from incanon.chat.transcript import ChatTranscript
from incanon.keptrows import KeptRows, damage_of, now

_SCHEMA = """
CREATE TABLE IF NOT EXISTS chats (
    id         TEXT PRIMARY KEY,
    work       TEXT NOT NULL,
    character  TEXT NOT NULL,
    at         TEXT NOT NULL,          -- where the character stands now (a position)
    method     TEXT NOT NULL,          -- the method answering now
    turns      INTEGER NOT NULL,
    created    TEXT NOT NULL,
    updated    TEXT NOT NULL,
    transcript TEXT NOT NULL           -- incanon-chat/1 JSON
);
CREATE INDEX IF NOT EXISTS chats_updated ON chats(updated);
"""


@dataclass(frozen=True)
class SavedChat:
    """One kept chat, as the list shows it and a reopen needs it."""

    id: str
    work: str
    character: str
    at: str
    method: str
    turns: int
    created: str
    updated: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form (what ``GET /api/chats`` lists)."""
        return dict(self.__dict__)


class ChatStore(KeptRows):
    """The chats SQLite file (see the module docstring). Safe to use from several threads."""

    readable = ("json_valid(transcript) AND json_type(transcript) = 'object'"
                " AND coalesce(json_type(transcript, '$.turns'), 'array') = 'array'")

    def __init__(self, path: Path) -> None:
        super().__init__(Path(path), "chat store", _SCHEMA, "chats")

    def save(self, chat_id: str, *, work: str, character: str, at: str, method: str,
             transcript: ChatTranscript) -> None:
        """Write the chat's current state (one statement: all of it or none)."""
        text = transcript.model_dump_json()
        stamp = now()
        with self._lock:
            self._conn.execute(
                "INSERT INTO chats (id, work, character, at, method, turns, created, updated, transcript)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET at = excluded.at,"
                " method = excluded.method, turns = excluded.turns, updated = excluded.updated,"
                " transcript = excluded.transcript",
                (chat_id, work, character, at, method, len(transcript.turns), stamp, stamp, text))

    def load(self, chat_id: str) -> tuple[SavedChat, ChatTranscript] | None:
        """The kept chat ``chat_id`` and its transcript (None: no such chat)."""
        with self._lock:
            row = self._conn.execute(
                "SELECT id, work, character, at, method, turns, created, updated, transcript FROM chats WHERE id = ?",
                (chat_id,)).fetchone()
        if row is None:
            return None
        try:
            return SavedChat(*row[:8]), ChatTranscript.model_validate_json(row[8])
        except ValueError as exc:  # not JSON, or not a transcript (pydantic's error is one)
            raise self.damage(chat_id, "its transcript is not an incanon-chat transcript", damage_of(exc)) from None

    def list(self, limit: int = 200) -> list[SavedChat]:
        """The kept chats, most recently used first."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT id, work, character, at, method, turns, created, updated FROM chats"
                f" WHERE {self.listable()} ORDER BY updated DESC, id LIMIT ?", (limit,)).fetchall()
        return [SavedChat(*r) for r in rows]



__all__ = ["ChatStore", "SavedChat"]
