"""A CoSER simulation as the scene engine plays it: its messages, what each role is shown, and the
performers (one ``coser-gca`` actor per character, the environment model as the Environment).

Visibility is the engine's, not left to prompts: every role hears every message, and its view
(:func:`view`) shows its own messages with their [thoughts] and everyone else's with the thoughts
removed; the Environment's messages are whole for all (it keeps no thoughts); the environment
model and the next-speaker predictor (the engine's director) see no thoughts at all.
"""

from __future__ import annotations

from typing import Sequence

from incanon.agents.base import CharacterAt, Turn
from incanon.bench.coser.agents import GcaActor
from incanon.bench.coser.formats import ENVIRONMENT, remove_thoughts
from incanon.bench.coser.simulation.messages import SimMessage, Simulation
from incanon.bench.coser.simulation.roles import EnvironmentRole
from incanon.canon.position import Position
from incanon.scenes.engine import Cue, Performance, Performer, concealing_view

_RENDER = concealing_view(remove_thoughts, open_speakers=(ENVIRONMENT,))


def view(viewer: str, history: Sequence[SimMessage]) -> list[Turn]:
    """The scene as ``viewer`` may see it: its own messages whole, others' without thoughts."""
    return _RENDER(viewer, history)


class SimulationStage:
    """The engine's stage of one simulation: lines are ``sim.messages``; no story clock."""

    def __init__(self, sim: Simulation) -> None:
        self.sim = sim

    @property
    def lines(self) -> list[SimMessage]:
        """The messages so far."""
        return self.sim.messages

    @property
    def position(self) -> Position | None:
        """None: every message is known from when it is said."""
        return None

    def render(self, viewer: str, lines: Sequence[SimMessage]) -> list[Turn]:
        """``viewer``'s view (:func:`view`); the director is nobody's role, so it sees no thoughts."""
        return view(viewer, lines)

    def record(self, cue: Cue, performance: Performance) -> SimMessage:
        """The message, with the raw output when cleaning changed it and what the actor recalled."""
        assert cue.speaker is not None
        raw = performance.raw
        message = SimMessage(role=cue.speaker, content=performance.text, source=performance.source,  # type: ignore[arg-type]
                             raw=raw if raw is not None and raw.strip() != performance.text else None,
                             retrieved=performance.details.get("recalled"))
        self.sim.messages.append(message)
        return message


def actor_performer(agent: GcaActor, who: CharacterAt) -> Performer:
    """``who`` played by its ``coser-gca`` agent: its line from its view."""

    async def perform(speaker: str, turns: list[Turn]) -> Performance:
        reply = await agent.respond(who, turns)
        return Performance(text=reply.text, source="actor", raw=reply.details.get("raw", reply.text), reply=reply,
                           details={"recalled": reply.details.get("recalled")})

    return perform


def environment_performer(role: EnvironmentRole) -> Performer:
    """The Environment, played by the environment model."""

    async def perform(speaker: str, turns: list[Turn]) -> Performance:
        text, raw = await role.respond(turns)
        return Performance(text=text, source="environment", raw=raw)

    return perform
