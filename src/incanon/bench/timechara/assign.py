"""Which character, at which time point, is asked what: data types from the canon alone.

The data type of an item is never the helper model's opinion. It follows from two facts of the
canon store: the event's position against the character's time point (a time point strictly
before the event makes it *future*; at or after, *past*), and the scene's participant list
(*past-presence* if the character is in it, *past-absence* if not). Following the paper
(Appendix D.3): structured questions go to every main character who has a past time point
(presence/absence) and to one character for the future; free-form questions to one character
for the future and one for the past (*past-only*); fake questions only to the past.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from incanon.bench.timechara.items import TimeCharaItem
from incanon.bench.timechara.labels import spatial_label, temporal_label
from incanon.bench.timechara.questions import structured_question
from incanon.bench.timechara.steps import EventExtraction, FakeEvent, FakeQA, FreeformQA
from incanon.canon.records import CharacterRecord, SceneRecord, TimePointRecord


@dataclass(frozen=True)
class SceneEvent:
    """One scene after the helper steps: its event, and the questions made from it."""

    scene: SceneRecord
    text: str
    """The scene text (quoted as the *moment* in past labels)."""
    event: EventExtraction
    freeform: FreeformQA | None = None
    fake: FakeEvent | None = None
    fake_qa: FakeQA | None = None


def was_present(character: CharacterRecord, scene: SceneRecord) -> bool:
    """True when the canon lists the character (by name or alias) among the scene's participants."""
    names = {character.name.lower(), *(a.lower() for a in character.aliases)}
    return any(p.lower() in names for p in scene.participants)


def when_text(point: TimePointRecord) -> str:
    """How labels and prompts name a time point."""
    return point.label or f"story position {point.position}"


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


class Assigner:
    """Makes the items of one work from its scene events, drawing with a per-scene seed."""

    def __init__(self, work: str, work_title: str, characters: list[CharacterRecord], seed: int = 0,
                 moment_chars: int = 1500) -> None:
        self.work = work
        self.work_title = work_title
        self.characters = sorted((c for c in characters if c.time_points), key=lambda c: c.name)
        self.seed = seed
        self.moment_chars = moment_chars

    def _item(self, ev: SceneEvent, character: CharacterRecord, point: TimePointRecord, *,
              question_generation: str, data_type: str, question: str, answer: str = "",
              fake: FakeEvent | None = None) -> TimeCharaItem:
        when = when_text(point)
        moment = ev.text[: self.moment_chars].strip()
        event = ev.event.event_summary
        return TimeCharaItem(
            id=f"{self.work}/{ev.scene.id}/{question_generation}/{data_type}/{_slug(character.name)}@{point.position}",
            series=self.work_title,
            question_generation=question_generation,  # type: ignore[arg-type]
            fake_method=fake.method_name if fake is not None else "-",
            event_summary=event,
            question=question,
            question_period=str(ev.scene.position),
            character=character.name,
            character_period=when,
            participants=list(ev.scene.participants),
            data_type=data_type,  # type: ignore[arg-type]
            temporal_label=temporal_label(data_type, character.name, when, event, moment=moment, answer=answer),
            spatial_label=spatial_label(data_type, character.name, when, event),
            work=self.work,
            scene=ev.scene.id,
            character_position=str(point.position),
            personality_label=character.personality or character.profile,
            fake_event_summary=fake.fake_event_summary if fake is not None else "",
            answer=answer,
        )

    def items(self, ev: SceneEvent) -> list[TimeCharaItem]:
        """Every item of one scene event."""
        rng = random.Random(f"{self.seed}:{self.work}:{ev.scene.id}")
        at = ev.scene.position
        past = {c.name: [tp for tp in c.time_points if tp.position >= at] for c in self.characters}
        future = {c.name: [tp for tp in c.time_points if tp.position < at] for c in self.characters}
        with_past = [c for c in self.characters if past[c.name]]
        with_future = [c for c in self.characters if future[c.name]]
        event = ev.event.event_summary
        out: list[TimeCharaItem] = []

        def pick(pool: list[CharacterRecord], points: dict[str, list[TimePointRecord]]):
            character = rng.choice(pool)
            return character, rng.choice(points[character.name])

        # No participant list at all: presence/absence cannot be decided, so none is asked.
        for character in with_past if ev.scene.participants else []:  # every main character: was I there?
            point = rng.choice(past[character.name])
            data_type = "past-presence" if was_present(character, ev.scene) else "past-absence"
            out.append(self._item(ev, character, point, question_generation="fact_structured",
                                  data_type=data_type, question=structured_question(event, rng)))
        if with_future:
            character, point = pick(with_future, future)
            out.append(self._item(ev, character, point, question_generation="fact_structured",
                                  data_type="future", question=structured_question(event, rng)))
        if ev.freeform is not None:
            if with_future:
                character, point = pick(with_future, future)
                out.append(self._item(ev, character, point, question_generation="fact_freeform",
                                      data_type="future", question=ev.freeform.question,
                                      answer=ev.freeform.answer))
            if with_past:
                character, point = pick(with_past, past)
                out.append(self._item(ev, character, point, question_generation="fact_freeform",
                                      data_type="past-only", question=ev.freeform.question,
                                      answer=ev.freeform.answer))
        if ev.fake is not None and ev.fake_qa is not None and with_past:
            character, point = pick(with_past, past)
            out.append(self._item(ev, character, point, question_generation="fake_freeform",
                                  data_type="past-only", question=ev.fake_qa.question,
                                  answer=ev.fake_qa.true_answer, fake=ev.fake))
        return out
