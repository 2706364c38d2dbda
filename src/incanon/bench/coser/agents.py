"""CoSER's character agent for given-circumstance acting, registered as ``coser-gca``.

One agent plays one character of one scene. Its setting (profile, scenario, the other
characters' profiles, its own motivation, what retrieval found) fills ``coser_act_system``; the
scene so far arrives as turns in which the character's own messages keep their [thoughts] and
everyone else's are already reduced to what the character can see (the simulation does that, so
no agent ever receives another's thoughts). Replies are cleaned of a leading ``Name:`` and of any
lines the model went on to write for other speakers.

With a memory (the option ``memory``, a :class:`~incanon.bench.coser.simulation.rag.CharacterMemory`)
the agent retrieves before every message, as CoSER's agents do: the query is its last three chat
messages, and what is found goes into its instruction for that message only.
"""

from __future__ import annotations

import re
from typing import Any, Sequence

from pydantic import BaseModel, Field

from incanon.agents.base import Agent, CallRecord, CharacterAt, Reply, Turn
from incanon.agents.registry import register_agent
from incanon.bench.coser.promptsets import template_name
from incanon.models.types import ChatModel, Message


class ActorSetting(BaseModel):
    """Everything one character agent is told about itself and the scene."""

    book: str
    profile: str = ""
    scenario: str = ""
    other_profiles: dict[str, str] = Field(default_factory=dict)
    """Name → profile of the other characters with a profile."""
    motivation: str = ""
    """The character's own state of mind before the scene (nobody else's)."""
    retrieved: list[str] = Field(default_factory=list)
    """Retrieved experiences and conversations of the character, already formatted."""
    thoughts: bool = True
    """Ask for [thoughts] in messages."""
    output_example: bool = True
    """Show an example of each markup (CoSER does for models not trained on its format)."""
    others: list[str] = Field(default_factory=list)
    """Names of the other speakers (Environment included), to cut lines written for them."""
    prompt_set: str = ""
    """``""`` for incanon's prompts, ``paper`` for ones built like CoSER's (``promptsets``)."""


def render_system(agent: Agent, character: str, setting: ActorSetting, recalled: Sequence[str] = ()) -> str:
    """The role-play instruction of ``character`` (with what it recalled for this message)."""
    return agent.prompts.render(
        template_name("act_system", setting.prompt_set), character=character, book=setting.book,
        profile=setting.profile, scenario=setting.scenario, other_profiles=setting.other_profiles,
        motivation=setting.motivation, retrieved=[*setting.retrieved, *recalled], thoughts=setting.thoughts,
        output_example=setting.output_example,
    )


def scene_messages(system_prompt: str, character: str, turns: Sequence[Turn], *, start: str,
                   cue: str) -> list[Message]:
    """System prompt, the scene ``start``, then the turns: the character's own as assistant
    messages, the others' as ``Name: text`` user messages (adjacent ones merged), closed by the
    turn ``cue`` (``coser_act_start`` / ``coser_act_cue``; an empty rendering leaves it out)."""
    messages = [Message(role="system", content=system_prompt)]
    pending = [start]
    for turn in turns:
        if turn.speaker == character:
            if any(p.strip() for p in pending):
                messages.append(Message(role="user", content="\n\n".join(p for p in pending if p.strip())))
            pending = []
            messages.append(Message(role="assistant", content=turn.text))
        else:
            pending.append(f"{turn.speaker}: {turn.text}")
    pending.append(cue)
    content = "\n\n".join(p for p in pending if p.strip())
    if content:
        messages.append(Message(role="user", content=content))
    elif messages[-1].role == "assistant":
        messages.append(Message(role="user", content="..."))
    return messages


def clean_reply(text: str, character: str, others: Sequence[str]) -> str:
    """``text`` without a leading ``character:`` and cut where a line starts with another
    speaker's ``Name:`` (the model writing the rest of the script)."""
    body = text.strip()
    prefix = re.compile(rf"^\W{{0,3}}{re.escape(character)}\W{{0,3}}\s*[:：]\s*", re.IGNORECASE)
    body = prefix.sub("", body, count=1)
    names = [n for n in others if n and n != character]
    if names:
        other = re.compile(r"^\W{0,3}(?:" + "|".join(re.escape(n) for n in names) + r")\W{0,3}\s*[:：]",
                           re.IGNORECASE | re.MULTILINE)
        match = other.search(body)
        if match:
            body = body[: match.start()]
        own = re.compile(rf"^\W{{0,3}}{re.escape(character)}\W{{0,3}}\s*[:：]", re.IGNORECASE | re.MULTILINE)
        match = own.search(body)
        if match and match.start() > 0:
            body = body[: match.start()]  # a second message of its own: keep one turn
    return body.strip()


@register_agent("coser-gca")
class GcaActor(Agent):
    """Plays one character of a CoSER scene; needs the option ``setting=ActorSetting(...)``."""

    requires = ("setting",)

    def __init__(self, model: ChatModel, **kwargs: Any) -> None:
        super().__init__(model, **kwargs)
        # Rendered once per character: the setting does not change during a scene.
        self._rendered: dict[str, tuple[str, str, str]] = {}

    @property
    def setting(self) -> ActorSetting:
        return self.options["setting"]

    def system_prompt(self, character: str) -> str:
        """The rendered role-play instruction (kept in the simulation's trace)."""
        if character not in self._rendered:
            pset = self.setting.prompt_set
            self._rendered[character] = (render_system(self, character, self.setting),
                                         self.prompts.render(template_name("act_start", pset)),
                                         self.prompts.render(template_name("act_cue", pset), character=character))
        return self._rendered[character][0]

    def recall(self, character: str, dialogue: Sequence[Turn]) -> list[str]:
        """What the memory returns for the agent's last three chat messages (none without one)."""
        memory = self.options.get("memory")
        if memory is None:
            return []
        _, start, _ = self._rendered[character]
        recent = scene_messages("", character, dialogue, start=start, cue="")[1:][-3:]
        return memory.recall("\n\n".join(m.content for m in recent))

    async def respond(self, who: CharacterAt, dialogue: Sequence[Turn]) -> Reply:
        calls: list[CallRecord] = []
        system = self.system_prompt(who.character)
        _, start, cue = self._rendered[who.character]
        recalled = self.recall(who.character, dialogue)
        if recalled:
            system = render_system(self, who.character, self.setting, recalled)
        messages = scene_messages(system, who.character, dialogue, start=start, cue=cue)
        raw = await self._call("act", messages, calls)
        text = clean_reply(raw, who.character, self.setting.others)
        details: dict[str, Any] = {"raw": raw} if raw != text else {}
        if recalled:
            details["recalled"] = recalled
        return Reply(text=text, method=self.name, calls=calls,
                     context=[*self.setting.retrieved, *recalled], details=details)
