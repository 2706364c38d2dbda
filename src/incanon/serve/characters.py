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
character's knowledge scope. The request's sampling fields, ``n``, a *Continue* (the last
message is the character's) and Open WebUI's background tasks are read by
:mod:`incanon.serve.requests`.

Each distinct model string gets one :class:`~incanon.chat.ChatSession` (kept, least recently
used closed first) whose method answers the dialogue it is given without recording it, so the
API stays stateless as OpenAI's is.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import secrets
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from incanon.agents.base import Turn
from incanon.canon.store import CanonStore
from incanon.chat import ChatSession
from incanon.chat.transcript import Evidence
from incanon.errors import ConfigError, IncanonError, InputError
from incanon.models.types import Completion, GenerationParams
from incanon.serve.config import ServeConfig
from incanon.serve.model_list import model_entries
from incanon.serve.requests import BackgroundTask, background_task, choices_wanted, continue_turn, sampling

log = logging.getLogger(__name__)


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


def dialogue_from_messages(messages: list[dict[str, Any]], character: str, *,
                           allow_continue: bool = False) -> list[Turn]:
    """The OpenAI ``messages`` as incanon's dialogue (system messages left out). It must end
    with the user's message, or with the character's when ``allow_continue`` (a *Continue*)."""
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
    if not turns:
        raise InputError("messages: expected at least one user or assistant message")
    if turns[-1].speaker != "user" and not allow_continue:
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
    choices: list[str] = field(default_factory=list)
    """Every choice's text when ``n`` > 1 (the first is ``text``); empty for one choice."""
    cached: bool = False
    """Every model call of the reply was answered from the response cache: the tokens are what
    the calls cost when they were made, not spent now."""
    continued: bool = False
    """A *Continue*: ``text`` goes on from the client's partial last message."""
    task: str | None = None
    """An Open WebUI background task answered plainly (``title``, ``tags``...), not in character."""

    def incanon(self) -> dict[str, Any]:
        """The extra ``incanon`` field of the response: who answered, when, and the evidence."""
        info: dict[str, Any] = {
            "character": self.character, "at": self.at, "time_label": self.time_label, "method": self.method,
            "scope": self.evidence.scope, "evidence": self.evidence.model_dump(mode="json"),
            "ignored_system_messages": self.ignored_system, "cached": self.cached}
        if self.continued:
            info["continued"] = True
        if self.task:
            info["task"] = self.task
        return info

    def usage(self) -> dict[str, Any]:
        """The ``usage`` object; ``incanon_cached`` says the tokens came from the cache."""
        return {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "total_tokens": self.prompt_tokens + self.completion_tokens, "incanon_cached": self.cached}


@dataclass
class ChatRequest:
    """A validated request, its session open: everything needed to answer it."""

    who: CharacterModel
    model: str
    opened: _Open
    dialogue: list[Turn]
    params: GenerationParams | None
    n: int
    ignored_system: int
    continued: bool
    task: BackgroundTask | None


def _cost(completions: list[Completion]) -> tuple[int, int, bool]:
    """Prompt and completion tokens of ``completions`` (a cached one counts what it cost when
    it was made, as its cache entry recorded) and whether every one came from the cache."""
    return (sum(c.prompt_tokens for c in completions), sum(c.completion_tokens for c in completions),
            bool(completions) and all(c.cached for c in completions))


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

    def find_model(self, model_id: str) -> dict[str, Any] | None:
        """The ``/v1/models`` entry with id ``model_id``, or None."""
        return next((m for m in self.list_models() if m["id"] == model_id), None)

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

    async def prepare(self, body: dict[str, Any]) -> ChatRequest:
        """Validate ``body`` and open its character's session (built by the scoped builder,
        also for a background task, so an unknown character is refused the same way)."""
        model = body.get("model")
        if not isinstance(model, str) or not model.strip():
            raise InputError("model: expected a character at a point of the story, [WORK/]CHARACTER@AT[/METHOD]")
        messages = body.get("messages")
        if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
            raise InputError("messages: expected a list of {role, content} objects")
        who = parse_model(model, self.config.methods)
        if who.method not in self.config.methods:
            raise ConfigError(f"method {who.method!r} is not offered here")
        n = choices_wanted(body)
        task = background_task(messages)
        opened = await self._session(who)
        session = opened.session
        params = sampling(body, session.params)
        dialogue = dialogue_from_messages(messages, session.who.character, allow_continue=True)
        continued = continue_turn(dialogue, session.who.character)
        if continued is not None:
            dialogue = continued[0]
        return ChatRequest(who=who, model=who.id if who.work else model.strip(), opened=opened, dialogue=dialogue,
                       params=params, n=n, continued=continued is not None, task=task,
                       ignored_system=sum(1 for m in messages if m.get("role") in ("system", "developer")))

    async def complete(self, body: dict[str, Any]) -> CharacterReply:
        """Answer one chat-completions request body."""
        return await self.answer(await self.prepare(body))

    async def answer(self, request: ChatRequest, on_text: Callable[[str], None] | None = None) -> CharacterReply:
        """The reply to a prepared request; ``on_text`` gets the first choice's text as the
        model writes it (see ``ChatSession.answer``)."""
        session = request.opened.session
        if request.task is not None:
            # No model call and no canon: the task's answer is built from the client's own text.
            evidence = Evidence(method=request.who.method, at=str(session.who.position), when=session.who.when,
                                scope=session.scope(), details={"task": request.task.kind})
            result = self._reply(request, [request.task.text], evidence, request.who.method, [])
            result.task = request.task.kind
            return self._keep(result)
        texts: list[str] = []
        completions: list[Completion] = []
        first: tuple[Any, Evidence] | None = None
        async with request.opened.lock:
            for index in range(request.n):
                params = request.params
                if index:
                    # Each further choice is its own generation (a separate cache entry).
                    params = (params or session.params).model_copy(update={"epoch": index})
                reply, evidence = await session.answer(request.dialogue, params=params,
                                                       on_text=on_text if index == 0 else None)
                completions += session.last_answer()[0]
                texts.append(reply.text)
                first = first or (reply, evidence)
        assert first is not None
        result = self._reply(request, texts, first[1], first[0].method, completions)
        return self._keep(result)

    def _reply(self, request: ChatRequest, texts: list[str], evidence: Evidence, method: str,
               completions: list[Completion]) -> CharacterReply:
        session = request.opened.session
        prompt, completion, cached = _cost(completions)
        return CharacterReply(
            id=f"chatcmpl-{secrets.token_urlsafe(12)}", model=request.model, text=texts[0], created=int(time.time()),
            evidence=evidence, character=session.who.character, at=str(session.who.position),
            time_label=session.who.time_label, method=method, prompt_tokens=prompt, completion_tokens=completion,
            ignored_system=request.ignored_system, choices=texts if len(texts) > 1 else [], cached=cached,
            continued=request.continued)

    def _keep(self, result: CharacterReply) -> CharacterReply:
        self.replies[result.id] = result
        while len(self.replies) > self.keep_replies:
            self.replies.popitem(last=False)
        return result

    async def stream(self, request: ChatRequest) -> AsyncIterator[str]:
        """The reply to ``request`` as server-sent events while the model writes the final
        answer (the method's earlier calls, e.g. its experts, run whole first): a role chunk
        at once, then the answer's text as it comes, then a chunk with ``finish_reason``,
        ``usage`` and the ``incanon`` field, then ``[DONE]``. A failure after the first event
        is sent as an OpenAI error event before ``[DONE]``."""
        stream_id, created = f"chatcmpl-{secrets.token_urlsafe(12)}", int(time.time())
        queue: asyncio.Queue[str] = asyncio.Queue()
        trim = _Trim()

        def on_text(piece: str) -> None:
            out = trim.feed(piece)
            if out:
                queue.put_nowait(out)

        task = asyncio.ensure_future(self.answer(request, on_text))
        yield _event(stream_id, request.model, created, {"role": "assistant", "content": ""})
        try:
            while True:
                getter = asyncio.ensure_future(queue.get())
                done, _ = await asyncio.wait({getter, task}, return_when=asyncio.FIRST_COMPLETED)
                if getter in done:
                    yield _event(stream_id, request.model, created, {"content": getter.result()})
                    continue
                getter.cancel()
                break
            while not queue.empty():
                yield _event(stream_id, request.model, created, {"content": queue.get_nowait()})
            try:
                reply = task.result()
            except Exception as exc:  # noqa: BLE001 - the client hears of it in the stream
                log.warning("a streamed reply failed: %s", exc)
                message = str(exc) if isinstance(exc, IncanonError) else "the character could not answer"
                error = {"error": {"message": message, "type": "server_error", "param": None, "code": None}}
                yield f"data: {json.dumps(error, ensure_ascii=False)}\n\n"
                yield "data: [DONE]\n\n"
                return
            # The web app lists the reply under the id the client saw.
            self.replies.pop(reply.id, None)
            reply.id, reply.created = stream_id, created
            self._keep(reply)
            extra: dict[str, Any] = {}
            if reply.text.startswith(trim.sent):
                # What the model did not stream (a cached, scripted or revised answer) comes now.
                for piece in _pieces(reply.text[len(trim.sent):]):
                    yield _event(stream_id, request.model, created, {"content": piece})
            else:
                # The method changed the streamed text afterwards: say what the reply is.
                extra["text"] = reply.text
            info = {**reply.incanon(), **extra}
            yield _event(stream_id, request.model, created, {}, "stop", {"incanon": info, "usage": reply.usage()})
            yield "data: [DONE]\n\n"
        finally:
            if not task.done():
                task.cancel()

    def close(self) -> None:
        """Close every session."""
        while self._sessions:
            _, opened = self._sessions.popitem()
            opened.session.close()


class _Trim:
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


def _event(stream_id: str, model: str, created: int, delta: dict[str, Any], finish: str | None = None,
           extra: dict[str, Any] | None = None, index: int = 0) -> str:
    """One ``chat.completion.chunk`` server-sent event."""
    chunk = {"id": stream_id, "object": "chat.completion.chunk", "created": created, "model": model,
             "choices": [{"index": index, "delta": delta, "finish_reason": finish, "logprobs": None}],
             **(extra or {})}
    return f"data: {json.dumps(chunk, ensure_ascii=False)}\n\n"


def _pieces(text: str, piece_chars: int = 24) -> list[str]:
    """``text`` in pieces of about ``piece_chars`` that join back to exactly ``text``."""
    pieces, piece = [], ""
    # Split where whitespace meets a word: the pieces join back to exactly the reply.
    for part in re.split(r"(?<=\s)(?=\S)", text):
        piece += part
        if len(piece) >= piece_chars:
            pieces.append(piece)
            piece = ""
    if piece:
        pieces.append(piece)
    return pieces


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
    events = [_event(reply.id, reply.model, reply.created, {"role": "assistant", "content": ""})]
    events += [_event(reply.id, reply.model, reply.created, {"content": p}) for p in _pieces(reply.text, piece_chars)]
    events.append(_event(reply.id, reply.model, reply.created, {}, "stop",
                         {"incanon": reply.incanon(), "usage": reply.usage()}))
    events.append("data: [DONE]\n\n")
    return events
