"""The helper-LLM steps of item building: event summary, free-form question, fake event and
fake question, and gold responses checked against their labels.

Each step is one templated call read as a small pydantic structure (JSON with a repair turn).
All calls go through the model the caller passes; load it with a response cache and a rerun
costs nothing.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, Field, field_validator

from incanon.bench.timechara.items import TimeCharaItem
from incanon.bench.timechara.llm_json import ask_structured
from incanon.judges.spatiotemporal import SpatiotemporalJudge
from incanon.models.types import ChatModel, GenerationParams, Message
from incanon.templates import PromptLibrary

FAKE_METHODS: dict[int, str] = {
    1: "change the character",
    2: "change the key object",
    3: "change the location",
    4: "change the action",
    5: "introduce a nonexistent character or object",
    6: "change a character's knowledge",
}
"""The six ways a fake event is made from a true one (TimeChara Appendix D.2)."""
_METHOD_WORDS = (("knowledge", 6), ("know", 6), ("nonexistent", 5), ("introduce", 5), ("invent", 5),
                 ("location", 3), ("place", 3), ("object", 2), ("action", 4), ("character", 1))


class EventExtraction(BaseModel):
    """A scene as one event and who was there."""

    event_summary: str = Field(min_length=8)
    participants: list[str] = Field(default_factory=list)


class FreeformQA(BaseModel):
    """A fact-based 5W1H question with its answer."""

    question: str = Field(min_length=8)
    answer: str = Field(min_length=2)


class FakeEvent(BaseModel):
    """A falsified event and the strategy number that made it."""

    fake_event_summary: str = Field(min_length=8)
    method: int = Field(ge=1, le=6)

    @field_validator("method", mode="before")
    @classmethod
    def _number(cls, value: Any) -> Any:
        # "3", "3. Alter the location", "change the location" all mean 3.
        if isinstance(value, str):
            digits = re.findall(r"[1-6]", value)
            if digits:
                return int(digits[0])
            lowered = value.lower()
            for word, number in _METHOD_WORDS:
                if word in lowered:
                    return number
        return value

    @property
    def method_name(self) -> str:
        """``3. change the location``."""
        return f"{self.method}. {FAKE_METHODS[self.method]}"


class FakeQA(BaseModel):
    """A question presupposing the fake event, and the correcting true answer."""

    question: str = Field(min_length=8)
    true_answer: str = Field(min_length=2)


class Helper:
    """The helper model and prompts of one build."""

    def __init__(self, model: ChatModel, prompts: PromptLibrary, *, json_mode: bool = True) -> None:
        self.model = model
        self.prompts = prompts
        self.json_mode = json_mode

    async def event(self, *, work_title: str, position: str, speakers: list[str],
                    known_characters: list[str], scene_text: str) -> EventExtraction:
        """Event summary and participants of one scene."""
        return await ask_structured(
            self.model, self.prompts, "timechara_event", EventExtraction, json_mode=self.json_mode,
            work_title=work_title, position=position, speakers=speakers,
            known_characters=known_characters, scene_text=scene_text,
        )

    async def freeform(self, *, work_title: str, position: str, event_summary: str) -> FreeformQA:
        """A fact-based free-form question and answer about the event."""
        return await ask_structured(
            self.model, self.prompts, "timechara_freeform", FreeformQA, json_mode=self.json_mode,
            work_title=work_title, position=position, event_summary=event_summary,
        )

    async def fake_event(self, *, work_title: str, event_summary: str) -> FakeEvent:
        """A fake version of the event by one of the six strategies."""
        return await ask_structured(
            self.model, self.prompts, "timechara_fake_event", FakeEvent, json_mode=self.json_mode,
            work_title=work_title, event_summary=event_summary,
        )

    async def fake_question(self, *, work_title: str, event_summary: str, fake_event_summary: str) -> FakeQA:
        """A question presupposing the fake event, with the true answer."""
        return await ask_structured(
            self.model, self.prompts, "timechara_fake_question", FakeQA, json_mode=self.json_mode,
            work_title=work_title, event_summary=event_summary, fake_event_summary=fake_event_summary,
        )

    async def gold(
        self, item: TimeCharaItem, *, work_title: str, when: str,
        judge: SpatiotemporalJudge | None, attempts: int,
    ) -> TimeCharaItem:
        """The item with a gold response, regenerated while the judge finds it inconsistent
        with the item's labels (at most ``attempts`` generations)."""
        rationale = item.temporal_label + (f"\n{item.spatial_label}" if item.has_spatial else "")
        prompt = self.prompts.render(
            "timechara_gold", character=item.character, work_title=work_title, when=when,
            question=item.question, rationale=rationale, personality=item.personality_label,
        )
        text, consistent, used = "", None, 0
        for attempt in range(max(1, attempts)):
            used = attempt + 1
            # Attempt 0 is the paper's low-temperature answer; retries sample anew (each epoch is
            # its own cache entry, so a rerun of the build replays the same sequence).
            params = GenerationParams(temperature=0.2 if attempt == 0 else 0.8, epoch=attempt, max_tokens=320)
            completion = await self.model.generate([Message(role="user", content=prompt)], params)
            text = completion.text.strip()
            if judge is None:
                break
            labels = [item.temporal_label] + ([item.spatial_label] if item.has_spatial else [])
            scores = [
                (await judge.judge(character=item.character, when=when, question=item.question,
                                   answer=text, label=label)).score
                for label in labels
            ]
            consistent = all(score == 1 for score in scores)
            if consistent:
                break
        return item.model_copy(update={"gold_response": text, "gold_consistent": consistent, "gold_attempts": used})
