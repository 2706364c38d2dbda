"""Chat with a character at a point in the story.

``ChatSession`` holds the conversation, the character's place in story time and the role-play
method; ``handle`` runs one line of the chat protocol (text or a ``/command``) and returns an
``Outcome``; ``ChatTranscript`` is what ``/save`` writes. The terminal (``incanon chat``) and the
web app are front ends over these::

    from incanon.chat import ChatSession, handle
    session = ChatSession(store, character="Wren", at="end of book 1", method="narrative-experts",
                          model=load_chat_model("embedded"))
    outcome = await handle(session, "Were you at the Spring Fair?")
    outcome = await handle(session, "/why")       # outcome.evidence: scope, hints, canon, calls
"""

from incanon.chat.commands import COMMANDS, Outcome, default_save_path, handle
from incanon.chat.embedder import LazyEmbedder
from incanon.chat.evidence import build_evidence
from incanon.chat.session import CHAT_PARAMS, ChatSession, resolve_work
from incanon.chat.transcript import (
    FORMAT,
    CallEvidence,
    ChatTranscript,
    ChatTurn,
    ChunkEvidence,
    Evidence,
    MethodUse,
    Stop,
)

__all__ = [
    "CHAT_PARAMS",
    "COMMANDS",
    "FORMAT",
    "CallEvidence",
    "ChatSession",
    "ChatTranscript",
    "ChatTurn",
    "ChunkEvidence",
    "Evidence",
    "LazyEmbedder",
    "MethodUse",
    "Outcome",
    "Stop",
    "build_evidence",
    "default_save_path",
    "handle",
    "resolve_work",
]
