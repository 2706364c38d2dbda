"""Few-shot prompting: worked examples of the same work before the question.

TimeChara shows four examples, one per data type (future, past-absence, past-presence,
past-only), each with a correct answer. Two sources:

* ``examples=PATH``: the authors' few-shot JSON (``methods/few_shot/*.json``, keyed
  ``character-book-day``; see ``incanon.agents.published_examples``), for characters of the
  published series. The block goes before the question in the user turn, as the authors do.
* ``store=``: examples drawn from the canon store (probes first, scenes otherwise; see
  ``incanon.agents.examples``), leaving out the scene being asked about and never reaching past
  the character's position. ``allow_spoilers=`` relaxes that.

With both, a character of a published series uses the file and any other the store.
"""

from __future__ import annotations

from typing import Sequence

from incanon.agents.base import Agent, CallRecord, CharacterAt, Reply, Turn
from incanon.agents.examples import ExamplePicker
from incanon.agents.published_examples import PublishedExamples
from incanon.agents.registry import register_agent
from incanon.agents.support import final_messages, last_turn, require_scope


@register_agent("few-shot")
class FewShotAgent(Agent):
    """Persona prompt plus worked examples of the same work. Calls per turn: 1 (``answer``).

    Options: ``examples=`` (the authors' few-shot JSON file or folder) and/or ``store=``.
    """

    requires = ("store|examples",)

    def uses_scope(self) -> bool:
        return self.options.get("examples") is None

    def _published(self) -> PublishedExamples | None:
        given = self.options.get("examples")
        if given is None or isinstance(given, PublishedExamples):
            return given
        loaded = PublishedExamples(given)
        self.options["examples"] = loaded  # read once per agent
        return loaded

    def _picker(self) -> ExamplePicker:
        picker = self.options.get("_picker")
        if picker is None:
            picker = ExamplePicker(self.options["store"], self.prompts,
                                   allow_spoilers=bool(self.options.get("allow_spoilers", False)))
            self.options["_picker"] = picker
        return picker

    async def respond(self, who: CharacterAt, dialogue: Sequence[Turn]) -> Reply:
        published = self._published()
        if published is not None and (who.series or self.options.get("store") is None):
            return await self._respond_published(published, who, dialogue)
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

    async def _respond_published(self, published: PublishedExamples, who: CharacterAt,
                                 dialogue: Sequence[Turn]) -> Reply:
        calls: list[CallRecord] = []
        key, block = published.block(who.character, who.period or who.time_label)
        messages = final_messages(self, who, dialogue, template="few_shot_published", examples=block)
        text = await self._call("answer", messages, calls)
        return Reply(text=text, method=self.name, calls=calls, context=[f"examples:{key}"],
                     details={"examples_key": key, "examples_source": published.sources[key]})
