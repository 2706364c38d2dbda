"""Point-in-time characters as OpenAI-compatible "models".

A front end that speaks the OpenAI chat API (SillyTavern, Open WebUI, LibreChat, the ``openai``
client) names a character at a point of the story in the ``model`` field::

    MODEL   := [WORK "/"] CHARACTER "@" AT [ "/" METHOD ]

``CHARACTER`` is a name or alias, ``AT`` a story position (``1-3``) or one of the character's
named time points (``end of book 1``), ``METHOD`` a role-play method the server offers (default
the first one). ``WORK`` may be left out when the store holds one work, or one work with that
character. The conversation in ``messages`` is the dialogue: ``user`` turns are the user's,
``assistant`` turns the character's, ``system`` turns are the front end's own instructions and
are not used (the character comes from the canon); the reply comes from the method, inside the
character's knowledge scope.

Each distinct model string gets one :class:`~incanon.chat.ChatSession` (kept, least recently
used closed first) whose method answers the dialogue it is given without recording it, so the
API stays stateless as OpenAI's is.
"""

from __future__ import annotations

import asyncio
import re
import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from incanon.agents.base import Turn
from incanon.canon.store import CanonStore
from incanon.chat import ChatSession
from incanon.chat.transcript import Evidence
from incanon.errors import ConfigError, InputError
from incanon.models.usage import metered
from incanon.serve.config import ServeConfig


@dataclass(frozen=True)
class CharacterModel:
    """A parsed ``model`` field."""

    work: str | None
    character: str
    at: str
    method: str

    @property
    def id(self) -> str:
        """The canonical model id."""
        prefix = f"{self.work}/" if self.work else ""
        return f"{prefix}{self.character}@{self.at}/{self.method}"


def parse_model(model: str, methods: tuple[str, ...]) -> CharacterModel:
    """Read ``model`` by the grammar of the module docstring; ``InputError`` names what is wrong."""
    text = model.strip()
    who, sep, when = text.partition("@")
    if not sep or not who.strip() or not when.strip():
        raise InputError(f"model {text[:200]!r}: expected [WORK/]CHARACTER@AT[/METHOD], e.g. "
                         f"'lanterns/Wren Callow@1-3' or 'Wren Callow@end of book 1/{methods[0]}'")
    work: str | None = None
    if "/" in who:
        work, who = who.split("/", 1)
    method = methods[0]
    at = when
    if "/" in when:
        head, tail = when.rsplit("/", 1)
        if tail.strip() in methods:
            at, method = head, tail.strip()
        elif tail.strip():
            raise InputError(f"model {text[:200]!r}: method {tail.strip()!r} is not offered here; "
                             f"choose one of {', '.join(methods)}")
    return CharacterModel(work=(work or "").strip() or None, character=who.strip(), at=at.strip(), method=method)


def dialogue_from_messages(messages: list[dict[str, Any]], character: str) -> list[Turn]:
    """The OpenAI ``messages`` as incanon's dialogue (system messages left out)."""
    turns: list[Turn] = []
    for index, message in enumerate(messages):
        role = message.get("role")
        content = message.get("content")
        if isinstance(content, list):  # content parts: keep the text ones
            content = "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict) and p.get("type") == "text")
        if not isinstance(content, str):
            raise InputError(f"messages[{index}].content: expected text")
        if role in ("system", "developer"):
            continue
        if role not in ("user", "assistant"):
            raise InputError(f"messages[{index}].role: expected system, user or assistant, not {role!r}")
        turns.append(Turn(speaker="user" if role == "user" else character, text=content))
    if not turns or turns[-1].speaker != "user":
        raise InputError("messages: the last message must be the user's")
    return turns


@dataclass
class _Open:
    session: ChatSession
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


@dataclass
class CharacterReply:
    """One answer of the character API, with what the front end and the web app show."""

    id: str
    model: str
    text: str
    created: int
    evidence: Evidence
    character: str
    at: str
    time_label: str | None
    method: str
    prompt_tokens: int
    completion_tokens: int
    ignored_system: int

    def incanon(self) -> dict[str, Any]:
        """The extra ``incanon`` field of the response: who answered, when, and the evidence."""
        return {"character": self.character, "at": self.at, "time_label": self.time_label, "method": self.method,
                "scope": self.evidence.scope, "evidence": self.evidence.model_dump(mode="json"),
                "ignored_system_messages": self.ignored_system}


class CharacterServer:
    """Answers ``/v1/chat/completions`` for point-in-time characters (see the module docstring)."""

    def __init__(self, config: ServeConfig, model_source: Any, *, max_sessions: int = 16, keep_replies: int = 200):
        self.config = config
        self._model_source = model_source
        self._sessions: OrderedDict[CharacterModel, _Open] = OrderedDict()
        self.max_sessions = max_sessions
        self.replies: OrderedDict[str, CharacterReply] = OrderedDict()
        self.keep_replies = keep_replies

    def list_models(self) -> list[dict[str, Any]]:
        """``/v1/models`` entries: every character at each named time point (at the end when it
        has none). Each entry's ``incanon`` field describes the character as it stands at that
        point only (names in use then, that point's description, the points reached by then),
        built by the scoped builder; later points' labels are added only with ``spoilers``."""
        return model_entries(self.config)

    async def _session(self, who: CharacterModel) -> _Open:
        found = self._sessions.get(who)
        if found is not None:
            self._sessions.move_to_end(who)
            return found
        model = await asyncio.to_thread(self._model_source)
        store = CanonStore.open(self.config.canon)
        try:
            session = ChatSession(store, character=who.character, at=who.at, method=who.method, work=who.work,
                                  model=model, model_spec=self.config.model_label, embedder=self.config.embedder,
                                  options=self.config.options)
        except BaseException:
            store.close()
            raise
        opened = self._sessions[who] = _Open(session)
        while len(self._sessions) > self.max_sessions:
            _, oldest = self._sessions.popitem(last=False)
            oldest.session.close()
        return opened

    async def complete(self, body: dict[str, Any]) -> CharacterReply:
        """Answer one chat-completions request body."""
        model = body.get("model")
        if not isinstance(model, str) or not model.strip():
            raise InputError("model: expected a character at a point of the story, [WORK/]CHARACTER@AT[/METHOD]")
        messages = body.get("messages")
        if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
            raise InputError("messages: expected a list of {role, content} objects")
        who = parse_model(model, self.config.methods)
        if who.method not in self.config.methods:
            raise ConfigError(f"method {who.method!r} is not offered here")
        opened = await self._session(who)
        session = opened.session
        dialogue = dialogue_from_messages(messages, session.who.character)
        async with opened.lock:
            with metered() as meter:
                reply, evidence = await session.answer(dialogue)
        result = CharacterReply(
            id=f"chatcmpl-{secrets.token_urlsafe(12)}", model=who.id if who.work else model.strip(),
            text=reply.text, created=int(time.time()), evidence=evidence, character=session.who.character,
            at=str(session.who.position), time_label=session.who.time_label, method=reply.method,
            prompt_tokens=meter.total.prompt_tokens, completion_tokens=meter.total.completion_tokens,
            ignored_system=sum(1 for m in messages if m.get("role") in ("system", "developer")))
        self.replies[result.id] = result
        while len(self.replies) > self.keep_replies:
            self.replies.popitem(last=False)
        return result

    def close(self) -> None:
        """Close every session."""
        while self._sessions:
            _, opened = self._sessions.popitem()
            opened.session.close()


def completion_json(reply: CharacterReply) -> dict[str, Any]:
    """A non-streaming ``chat.completion`` object (OpenAI wire format) plus the ``incanon`` field."""
    return {
        "id": reply.id, "object": "chat.completion", "created": reply.created, "model": reply.model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": reply.text}, "finish_reason": "stop",
                     "logprobs": None}],
        "usage": {"prompt_tokens": reply.prompt_tokens, "completion_tokens": reply.completion_tokens,
                  "total_tokens": reply.prompt_tokens + reply.completion_tokens},
        "incanon": reply.incanon(),
    }


def stream_events(reply: CharacterReply, piece_chars: int = 24) -> list[str]:
    """The reply as ``chat.completion.chunk`` server-sent events: a role chunk, the text in
    pieces, a final chunk with ``finish_reason`` and the ``incanon`` field, then ``[DONE]``.
    The method answers whole (several calls for some), so the pieces follow its answer."""
    import json

    def event(delta: dict[str, Any], finish: str | None = None, extra: dict[str, Any] | None = None) -> str:
        chunk = {"id": reply.id, "object": "chat.completion.chunk", "created": reply.created, "model": reply.model,
                 "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}], **(extra or {})}
        return f"data: {json.dumps(chunk, ensure_ascii=False)}\n\n"

    events = [event({"role": "assistant", "content": ""})]
    piece = ""
    # Split where whitespace meets a word: the pieces join back to exactly the reply.
    for part in re.split(r"(?<=\s)(?=\S)", reply.text):
        piece += part
        if len(piece) >= piece_chars:
            events.append(event({"content": piece}))
            piece = ""
    if piece:
        events.append(event({"content": piece}))
    usage = {"prompt_tokens": reply.prompt_tokens, "completion_tokens": reply.completion_tokens,
             "total_tokens": reply.prompt_tokens + reply.completion_tokens}
    events.append(event({}, "stop", {"incanon": reply.incanon(), "usage": usage}))
    events.append("data: [DONE]\n\n")
    return events


def model_entries(config: ServeConfig) -> list[dict[str, Any]]:
    """The ``/v1/models`` entries of the canon store of ``config`` (see ``list_models``)."""
    from incanon.retrieval.chunks import end_of_story

    entries: list[dict[str, Any]] = []
    with CanonStore.open(config.canon) as store:
        for work in store.works():
            for character in store.characters(work.id):
                points = sorted(character.time_points, key=lambda tp: tp.position.key)
                stops = [(tp.label, tp.position) for tp in points] or [("end", end_of_story(work.axis))]
                for label, position in stops:
                    entries.append(model_entry(store, work, character, label, position, config.methods,
                                               spoilers=config.spoilers))
    return entries


def model_entry(store: CanonStore, work: Any, character: Any, label: str, position: Any,
                methods: tuple[str, ...], *, spoilers: bool = False) -> dict[str, Any]:
    """One ``/v1/models`` entry: ``character`` (a record) of ``work`` (a record) at ``label``,
    described as it stands there by the scoped builder."""
    from incanon.canon.persona import persona_at

    persona = persona_at(store, work.id, character, position, text=False)
    info: dict[str, Any] = {
        "work": work.id, "title": work.title, "character": character.name,
        "names": list(persona.names), "at": label, "position": str(position),
        "description": persona.time_description,
        "time_points": [tp.label for tp in persona.reached], "methods": list(methods)}
    if spoilers:
        info["later_time_points"] = [tp.label for tp in sorted(character.time_points, key=lambda t: t.position.key)
                                     if tp.position > position]
    return {"id": f"{work.id}/{character.name}@{label}", "object": "model", "created": int(time.time()),
            "owned_by": "incanon", "incanon": info}
