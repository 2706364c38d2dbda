"""The zero-shot role-play method: one prompt, one call."""

from __future__ import annotations

from typing import Sequence

from incanon.agents.base import Agent, CallRecord, CharacterAt, Reply, Turn, dialogue_messages
from incanon.agents.registry import register_agent
from incanon.models.types import Message


def persona_prompt(agent: Agent, who: CharacterAt, template: str = "roleplay_system") -> str:
    """Render the role-play system prompt for ``who``."""
    return agent.prompts.render(
        template,
        character=who.character,
        aliases=who.aliases,
        work_title=who.work_title,
        author=who.author,
        profile=who.profile,
        personality=who.personality,
        when=who.when,
        situation=who.time_description,
    )


@register_agent("zero-shot")
class ZeroShotAgent(Agent):
    """Answers in character from the persona prompt alone (TimeChara's zero-shot baseline)."""

    async def respond(self, who: CharacterAt, dialogue: Sequence[Turn]) -> Reply:
        calls: list[CallRecord] = []
        messages = [Message(role="system", content=persona_prompt(self, who))]
        messages += dialogue_messages(who, dialogue)
        text = await self._call("answer", messages, calls)
        return Reply(text=text, method=self.name, calls=calls)
