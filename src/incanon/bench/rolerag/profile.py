"""The character-profile baseline's profile: an LLM summary of the corpus about the character.

Map-reduce over the chunks the character's scope allows that name the character (any alias):
one short note per chunk, then one paragraph. A point-in-time character's profile is written
from the text up to their position only. Notes and profiles go through the model, so a response
cache makes them a one-time cost per (character, position).
"""

from __future__ import annotations

import re

from incanon.agents.base import CharacterAt
from incanon.errors import InputError
from incanon.models.types import ChatModel, GenerationParams, Message
from incanon.templates import PromptLibrary

PROFILE_WORDS = 150
MAX_NOTES = 40


def _mentions(who: CharacterAt) -> re.Pattern[str]:
    names = sorted({who.character, *who.aliases}, key=len, reverse=True)
    return re.compile("|".join(r"(?<![\w-])" + re.escape(n) + r"(?![\w-])" for n in names))


async def build_profile(model: ChatModel, prompts: PromptLibrary, who: CharacterAt, *,
                        max_notes: int = MAX_NOTES, texts: list[str] | None = None) -> tuple[str, int]:
    """(profile text, model calls made) from ``texts`` (the corpus chunks the character may have
    read, in story order), or by default from the canon chunks ``who.scope`` allows."""
    if who.scope is None:
        raise InputError("the profile method needs the character's knowledge scope (character_at(...))")
    pattern = _mentions(who)
    source = texts if texts is not None else [c.text for c in who.scope.chunks()]
    chunks = [t for t in source if pattern.search(t)]
    if len(chunks) > max_notes:  # spread evenly over the story rather than its start only
        step = len(chunks) / max_notes
        chunks = [chunks[int(i * step)] for i in range(max_notes)]
    notes, calls = [], 0
    for c in chunks:
        prompt = prompts.render("rolerag_profile_part", work_title=who.work_title, character=who.character, text=c)
        reply = await model.generate([Message(role="user", content=prompt)], GenerationParams(max_tokens=120))
        calls += 1
        text = " ".join(reply.text.split())
        if text and not text.lower().startswith("nothing"):
            notes.append(text)
    if not notes:
        return who.profile, calls
    prompt = prompts.render("rolerag_profile", work_title=who.work_title, character=who.character, notes=notes,
                            budget=PROFILE_WORDS)
    reply = await model.generate([Message(role="user", content=prompt)], GenerationParams(max_tokens=260))
    return " ".join(reply.text.split()), calls + 1
