"""Few-shot prompting: four worked examples from the same work before the question.

TimeChara shows one example per data type (future, past-absence, past-presence, past-only)
with a correct answer. Here the examples come from the canon store (probes first, scenes
otherwise; see ``incanon.agents.examples``), leave out the scene being asked about, and never
reach past the character's position. Options: ``store=`` (required), ``allow_spoilers=``.
"""

from __future__ import annotations

from typing import Sequence

from incanon.agents.base import Agent, CallRecord, CharacterAt, Reply, Turn
from incanon.agents.examples import ExamplePicker
from incanon.agents.registry import register_agent
from incanon.agents.support import final_messages, last_turn, require_scope


@register_agent("few-shot")
class FewShotAgent(Agent):
    """Persona prompt plus in-canon examples of the same work. Calls per turn: 1 (``answer``)."""

    requires = ("store",)

    def _picker(self) -> ExamplePicker:
        picker = self.options.get("_picker")
        if picker is None:
            picker = ExamplePicker(self.options["store"], self.prompts,
                                   allow_spoilers=bool(self.options.get("allow_spoilers", False)))
            self.options["_picker"] = picker
        return picker

    async def respond(self, who: CharacterAt, dialogue: Sequence[Turn]) -> Reply:
        calls: list[CallRecord] = []
        asked = last_turn(dialogue)
        work = require_scope(who, self.name).work.id
        examples = self._picker().pick(work, who.position, asked.text, asked.about)
        block = ""
        if examples:
            block = self.prompts.render(
                "few_shot_examples", work_title=who.work_title, examples=[e.to_dict() for e in examples])
        messages = final_messages(self, who, dialogue, system_extra=block)
        text = await self._call("answer", messages, calls)
        return Reply(
            text=text, method=self.name, calls=calls,
            context=[f"example:{e.data_type}:{e.event}" for e in examples],
            details={
                "examples": [e.to_dict() for e in examples],
                "missing_types": sorted({"future", "past-absence", "past-presence", "past-only"}
                                        - {e.data_type for e in examples}),
            },
        )
