"""Role-play agents: one method each, registered by name."""

from incanon.agents.base import Agent, CallRecord, CharacterAt, Reply, Turn, dialogue_messages
from incanon.agents.persona import character_at
from incanon.agents.registry import agent_names, create_agent, register_agent
from incanon.agents.zero_shot import ZeroShotAgent, persona_prompt

__all__ = [
    "Agent",
    "CallRecord",
    "CharacterAt",
    "Reply",
    "Turn",
    "ZeroShotAgent",
    "agent_names",
    "character_at",
    "create_agent",
    "dialogue_messages",
    "persona_prompt",
    "register_agent",
]
