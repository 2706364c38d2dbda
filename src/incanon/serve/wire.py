"""The OpenAI wire format of ``/v1/chat/completions`` replies: whole ``chat.completion``
objects and ``chat.completion.chunk`` server-sent events, with incanon's extra ``incanon`` field
(who answered, when, the scope and the evidence)."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from incanon.serve.characters import CharacterReply


class Trim:
    """Streams text as the method will return it, trimmed: leading whitespace is dropped and
    trailing whitespace held back until more text follows."""

    def __init__(self) -> None:
        self.sent = ""
        self._held = ""

    def feed(self, piece: str) -> str:
        text = self._held + piece
        if not self.sent:
            text = text.lstrip()
        body = text.rstrip()
        self._held = text[len(body):]
        self.sent += body
        return body


def chunk_event(stream_id: str, model: str, created: int, delta: dict[str, Any], finish: str | None = None,
                extra: dict[str, Any] | None = None, index: int = 0) -> str:
    """One ``chat.completion.chunk`` server-sent event."""
    chunk = {"id": stream_id, "object": "chat.completion.chunk", "created": created, "model": model,
             "choices": [{"index": index, "delta": delta, "finish_reason": finish, "logprobs": None}],
             **(extra or {})}
    return f"data: {json.dumps(chunk, ensure_ascii=False)}\n\n"


def pieces(text: str, piece_chars: int = 24) -> list[str]:
    """``text`` in pieces of about ``piece_chars`` that join back to exactly ``text``."""
    out, piece = [], ""
    # Split where whitespace meets a word: the pieces join back to exactly the reply.
    for part in re.split(r"(?<=\s)(?=\S)", text):
        piece += part
        if len(piece) >= piece_chars:
            out.append(piece)
            piece = ""
    if piece:
        out.append(piece)
    return out


def completion_json(reply: CharacterReply) -> dict[str, Any]:
    """A non-streaming ``chat.completion`` object (OpenAI wire format) plus the ``incanon`` field."""
    texts = reply.choices or [reply.text]
    return {
        "id": reply.id, "object": "chat.completion", "created": reply.created, "model": reply.model,
        "choices": [{"index": i, "message": {"role": "assistant", "content": text}, "finish_reason": "stop",
                     "logprobs": None} for i, text in enumerate(texts)],
        "usage": reply.usage(),
        "incanon": reply.incanon(),
    }


def stream_events(reply: CharacterReply, piece_chars: int = 24) -> list[str]:
    """A finished reply as ``chat.completion.chunk`` server-sent events: a role chunk, the text
    in pieces, a final chunk with ``finish_reason``, ``usage`` and the ``incanon`` field, then
    ``[DONE]`` (what :meth:`CharacterServer.stream` sends for an answer that is not streamed)."""
    events = [chunk_event(reply.id, reply.model, reply.created, {"role": "assistant", "content": ""})]
    events += [chunk_event(reply.id, reply.model, reply.created, {"content": p}) for p in pieces(reply.text, piece_chars)]
    events.append(chunk_event(reply.id, reply.model, reply.created, {}, "stop",
                              {"incanon": reply.incanon(), "usage": reply.usage()}))
    events.append("data: [DONE]\n\n")
    return events
