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
:mod:`incanon.serve.requests`; a group chat's history (other characters' ``assistant`` lines, by
their ``name`` field or a leading ``Name:``) by :mod:`incanon.serve.scene_group`.

Each distinct model string gets one :class:`~incanon.chat.ChatSession` (kept, least recently
used closed first) whose method answers the dialogue it is given without recording it, so the
API stays stateless as OpenAI's is.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field, replace
from typing import Any

from incanon.agents.base import Turn
from incanon.chat import ChatSession
from incanon.chat.transcript import Evidence
from incanon.errors import ConfigError, IncanonError, InputError
from incanon.models.types import Completion, GenerationParams
from incanon.printable import safe_message
from incanon.serve.config import ServeConfig
from incanon.serve.hosting import SessionHost, SharedModel
from incanon.serve.indexing import IndexJobs
from incanon.serve.model_list import find_entry, model_entries
from incanon.serve.reader import READER_HEADER, reader_target
from incanon.serve.follow_ups import follow_ups
from incanon.serve.requests import (BackgroundTask, background_task, choices_wanted, continue_turn,
                                   dialogue_from_messages, sampling)
from incanon.serve.scene_group import heard_in_group
from incanon.serve.wire import Trim, chunk_event, completion_json, pieces, stream_events

__all__ = ["CharacterModel", "CharacterReply", "CharacterServer", "ChatRequest", "completion_json", "parse_model",
           "stream_events"]

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
    opened: SessionHost
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
    """Answers ``/v1/chat/completions`` for point-in-time characters (see the module docstring).

    Sessions live on threads of their own (:class:`~incanon.serve.hosting.SessionHost`), and
    requests to one session run side by side there: each reply's settings are its own.
    """

    def __init__(self, config: ServeConfig, model: SharedModel, jobs: IndexJobs, *, max_sessions: int = 16,
                 keep_replies: int = 200) -> None:
        self.config = config
        self._model = model
        self.jobs = jobs
        self._sessions: OrderedDict[CharacterModel, SessionHost] = OrderedDict()
        self._opening: dict[CharacterModel, asyncio.Future[SessionHost]] = {}
        self.max_sessions = max_sessions
        self.replies: OrderedDict[str, CharacterReply] = OrderedDict()
        self.keep_replies = keep_replies

    async def list_models(self, reader_at: str | None = None) -> list[dict[str, Any]]:
        """``/v1/models`` entries for a reader at ``reader_at`` (None: the server's reader
        position, if any): see :mod:`incanon.serve.model_list`. Each entry's ``incanon`` field
        describes the character as it stands at that point only, built by the scoped builder.
        Read in a worker thread (with its own store connection)."""
        return await asyncio.to_thread(model_entries, self.config, reader_at)

    async def find_model(self, model_id: str, reader_at: str | None = None) -> dict[str, Any] | None:
        """The ``/v1/models`` entry ``model_id`` names for a reader at ``reader_at`` (by label or
        by position), or None when that reader is not shown it."""
        return await asyncio.to_thread(find_entry, self.config, model_id, reader_at)

    def _for_reader(self, who: CharacterModel, reader_at: str | None) -> CharacterModel:
        """``who`` as a reader at ``reader_at`` (else the server's position) may ask for it, by
        canonical name and position (:func:`~incanon.serve.reader.reader_target`); in a worker
        thread (it opens its own store connection)."""
        work, character, at = reader_target(self.config, who.work, who.character, who.at, reader_at, READER_HEADER)
        return CharacterModel(work=work, character=character, at=at, method=who.method)

    async def _session(self, who: CharacterModel) -> SessionHost:
        found = self._sessions.get(who)
        if found is not None:
            self._sessions.move_to_end(who)
            return found
        # Requests that arrive together for a new character share one opening.
        opening = self._opening.get(who)
        if opening is None:
            opening = self._opening[who] = asyncio.ensure_future(self._open(who))
            opening.add_done_callback(lambda _: self._opening.pop(who, None))
        return await asyncio.shield(opening)

    async def _open(self, who: CharacterModel) -> SessionHost:
        model = await self._model.get()
        host = await SessionHost.open(self.config, model, self.jobs, character=who.character, at=who.at,
                                      method=who.method, work=who.work)
        self._sessions[who] = host
        while len(self._sessions) > self.max_sessions:
            _, oldest = self._sessions.popitem(last=False)
            oldest.close()  # once its running requests end
        return host

    async def prepare(self, body: dict[str, Any], reader_at: str | None = None) -> ChatRequest:
        """Validate ``body`` and open its character's session (built by the scoped builder,
        also for a background task, so an unknown character is refused the same way). With a
        reader position (``reader_at``, else the server's), a character or point the reader
        is not shown is refused, and the error names nothing after that position."""
        model = body.get("model")
        if not isinstance(model, str) or not model.strip():
            raise InputError("model: expected a character at a point of the story, [WORK/]CHARACTER@AT[/METHOD]")
        messages = body.get("messages")
        if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
            raise InputError("messages: expected a list of {role, content} objects")
        who = parse_model(model, self.config.methods)
        if who.method not in self.config.methods:
            raise ConfigError(f"method {who.method!r} is not offered here")
        shown = who.id if who.work else model.strip()  # the reply names the model as the client did
        if reader_at is not None or self.config.reader_at is not None:
            who = await asyncio.to_thread(self._for_reader, who, reader_at)
        n = choices_wanted(body)
        task = background_task(messages)
        opened = await self._session(who)
        if task is not None and task.kind == "follow_ups":
            # What a reader would ask this character at this point, from what it may know.
            questions = await opened.call(lambda s: follow_ups(s, list(task.history)))
            task = replace(task, text=json.dumps({"follow_ups": questions}, ensure_ascii=False))
        session = opened.session
        params = sampling(body, session.params)
        dialogue = dialogue_from_messages(messages, session.who.character, allow_continue=True)
        if task is None:
            # A group chat's history: the other characters' lines as what this one heard.
            heard = await opened.call(lambda s: heard_in_group(s, messages))
            dialogue = heard if heard is not None else dialogue
        continued = continue_turn(dialogue, session.who.character)
        if continued is not None:
            dialogue = continued[0]
        return ChatRequest(who=who, model=shown, opened=opened, dialogue=dialogue,
                           params=params, n=n, continued=continued is not None, task=task,
                           ignored_system=sum(1 for m in messages if m.get("role") in ("system", "developer")))

    async def complete(self, body: dict[str, Any]) -> CharacterReply:
        """Answer one chat-completions request body."""
        return await self.answer(await self.prepare(body))

    async def answer(self, request: ChatRequest, on_text: Callable[[str], None] | None = None) -> CharacterReply:
        """The reply to a prepared request; ``on_text`` gets the first choice's text as the
        model writes it (see ``ChatSession.answer``), called on the model's thread. A method
        that retrieves waits here, without blocking anyone else, for the work's first
        embedding."""
        host = request.opened
        session = host.session
        if request.task is not None:
            # No model call and no canon: the task's answer is built from the client's own text.
            scope = await host.call(ChatSession.scope)
            evidence = Evidence(method=request.who.method, at=str(session.who.position), when=session.who.when,
                                scope=scope, details={"task": request.task.kind})
            result = self._reply(request, [request.task.text], evidence, request.who.method, [])
            result.task = request.task.kind
            return self._keep(result)
        await host.ready()

        async def choices(session: ChatSession) -> tuple[list[str], list[Completion], tuple[Any, Evidence]]:
            texts: list[str] = []
            completions: list[Completion] = []
            first: tuple[Any, Evidence] | None = None
            for index in range(request.n):
                params = request.params
                if index:
                    # Each further choice is its own generation (a separate cache entry).
                    params = (params or session.params).model_copy(update={"epoch": index})
                reply, evidence = await session.answer(request.dialogue, params=params,
                                                       on_text=on_text if index == 0 else None)
                completions += session.last_answer()[0]  # read before anything else runs here
                texts.append(reply.text)
                first = first or (reply, evidence)
            assert first is not None
            return texts, completions, first

        texts, completions, first = await host.run(choices)
        return self._keep(self._reply(request, texts, first[1], first[0].method, completions))

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
        trim = Trim()
        loop = asyncio.get_running_loop()

        def feed(piece: str) -> None:
            out = trim.feed(piece)
            if out:
                queue.put_nowait(out)

        def on_text(piece: str) -> None:
            # Called on the model's thread: the piece is handed over on this loop, in order.
            loop.call_soon_threadsafe(feed, piece)

        task = asyncio.ensure_future(self.answer(request, on_text))
        yield chunk_event(stream_id, request.model, created, {"role": "assistant", "content": ""})
        try:
            while True:
                getter = asyncio.ensure_future(queue.get())
                done, _ = await asyncio.wait({getter, task}, return_when=asyncio.FIRST_COMPLETED)
                if getter in done:
                    yield chunk_event(stream_id, request.model, created, {"content": getter.result()})
                    continue
                getter.cancel()
                break
            while not queue.empty():
                yield chunk_event(stream_id, request.model, created, {"content": queue.get_nowait()})
            try:
                reply = task.result()
            except Exception as exc:  # noqa: BLE001 - the client hears of it in the stream
                log.warning("a streamed reply failed: %s", exc)
                message = safe_message(str(exc)) if isinstance(exc, IncanonError) else "the character could not answer"
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
                for piece in pieces(reply.text[len(trim.sent):]):
                    yield chunk_event(stream_id, request.model, created, {"content": piece})
            else:
                # The method changed the streamed text afterwards: say what the reply is.
                extra["text"] = reply.text
            info = {**reply.incanon(), **extra}
            yield chunk_event(stream_id, request.model, created, {}, "stop", {"incanon": info, "usage": reply.usage()})
            yield "data: [DONE]\n\n"
        finally:
            if not task.done():
                task.cancel()

    def close(self) -> None:
        """Close every session (shutdown)."""
        while self._sessions:
            _, host = self._sessions.popitem()
            host.close_now()
