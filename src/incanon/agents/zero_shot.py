"""The zero-shot role-play method: one prompt, one call."""

from __future__ import annotations

from typing import Sequence

from incanon.agents.base import Agent, CallRecord, CharacterAt, Reply, Turn, dialogue_messages
from incanon.agents.registry import register_agent
from incanon.models.types import Message


PERSONAS = {"rich": "roleplay_system", "paper": "roleplay_paper"}
"""Persona name → system prompt template. ``paper``: TimeChara's zero-shot system instruction
(role, series and author, point in time, no future facts, absence means not knowing) in
incanon's words; ``rich`` (default): incanon's persona with profile, personality and situation."""


def persona_template(agent: Agent) -> str:
    """The system prompt template of the agent's ``persona=`` option (``rich`` by default)."""
    name = str(agent.options.get("persona") or "rich")
    if name not in PERSONAS:
        from incanon.errors import ConfigError

        raise ConfigError(f"unknown persona {name!r}; known: {', '.join(PERSONAS)}")
    return PERSONAS[name]


def persona_prompt(agent: Agent, who: CharacterAt, template: str | None = None) -> str:
    """Render the role-play system prompt for ``who`` (the ``persona=`` option's template
    unless ``template`` is given)."""
    return agent.prompts.render(
        template or persona_template(agent),
        character=who.character,
        aliases=who.aliases,
        secret_names=who.secret_names,
        work_title=who.work_title,
        author=who.author,
        profile=who.profile,
        personality=who.personality,
        when=who.when,
        situation=who.time_description,
    )


@register_agent("zero-shot")
class ZeroShotAgent(Agent):
    """Answers in character from the persona prompt alone (TimeChara's zero-shot baseline).

    Option ``persona=``: ``rich`` (default) or ``paper`` (the paper's zero-shot instruction).
    """

    async def respond(self, who: CharacterAt, dialogue: Sequence[Turn]) -> Reply:
        calls: list[CallRecord] = []
        messages = [Message(role="system", content=persona_prompt(self, who))]
        messages += dialogue_messages(who, dialogue)
        text = await self._call("answer", messages, calls)
        return Reply(text=text, method=self.name, calls=calls)
