"""Judging one answer: both spatiotemporal judge calls for presence/absence, personality, and a
hallucination type for inconsistent answers; resolving who answers."""

from __future__ import annotations

import pytest

from incanon.agents import CharacterAt
from incanon.bench.timechara import CharacterResolver, Judges, TimeCharaItem, judge_answer, period_position
from incanon.canon import Position
from incanon.errors import InputError
from incanon.models import ScriptedModel
from incanon.templates import PromptLibrary

from timechara_helpers import published_row


def _judge_model() -> ScriptedModel:
    return ScriptedModel([
        (r"captures a character's personality", "In character.\n**Score:** six"),
        (r"Classify the main error", "It says it was there.\nType: spatial"),
        (r"Absence:", "Claims to have seen it.\nScore: 1\n...on reflection:\nScore: 0"),
        (r"Past:", "Fine.\nScore: 1"),
        (r"Future:", "Reveals the ending."),  # no score: one repair call follows
        (r"only the score", "0"),
    ])


WHO = CharacterAt(work_title="Harry Potter", character="Hermione Granger", position=Position.parse("2-8"),
                  time_label="2nd year, Halloween", personality="Clever and bossy.")


async def test_presence_absence_items_get_both_judge_calls_and_the_product():
    model = _judge_model()
    item = TimeCharaItem.model_validate(published_row(temporal_label="Past: she can recall it.",
                                                      spatial_label="Absence: she was not in the car."))
    outcome = await judge_answer(item, WHO, "Yes, I was in the car!", Judges.on(model, PromptLibrary()))
    assert outcome.scores == {"spatiotemporal": 0.0, "temporal": 1.0, "spatial": 0.0, "personality": 6.0}
    assert outcome.outputs["hallucination_type"] == "spatial"
    prompts = [c.messages[-1].content for c in model.calls]
    spatiotemporal = [p for p in prompts if "(the spatiotemporal label)" in p]
    assert len(spatiotemporal) == 2  # judged separately on each label
    assert sum("Past: she can recall it." in p for p in spatiotemporal) == 1
    assert sum("Absence: she was not in the car." in p for p in spatiotemporal) == 1
    assert any("Clever and bossy." in p for p in prompts)
    assert len(model.calls) == 4  # temporal, personality, spatial, hallucination type


async def test_future_items_use_the_temporal_score_alone():
    model = _judge_model()
    item = TimeCharaItem.model_validate(published_row(
        data_type="future", spatial_label="-", temporal_label="Future: not yet.", character_period="1st-year"))
    outcome = await judge_answer(item, WHO, "Ron and I crashed the car.", Judges.on(model, PromptLibrary(), False))
    assert outcome.scores == {"spatiotemporal": 0.0, "temporal": 0.0, "personality": 6.0}
    assert outcome.extra["repaired"] == ["temporal"]
    assert outcome.outputs["hallucination_type"] is None  # classification switched off
    assert not any("Classify the main error" in c.messages[-1].content for c in model.calls)


def test_published_time_points_are_placed_by_the_papers_table():
    assert period_position("harry_potter", "Harry Potter", "2nd-year / on Halloween") == Position.parse("2-8")
    assert period_position("harry_potter", "Harry Potter", "7th-year") == Position.parse("7-36")
    # The other series write "<book>" (the end of that book) or "<book> / <named moment>".
    assert period_position("the_lord_of_the_rings", "Frodo Baggins", "1") == Position.parse("1-2-10")
    assert period_position("the_lord_of_the_rings", "Frodo Baggins",
                           "1 / at the moment when Frodo was stabbed by one of the Ringwraiths") == Position.parse("1-1-11")
    assert period_position("Twilight", "Jacob Black", "4 / at Christmas, 2006") == Position.parse("4-34")
    assert period_position("hunger_games", "Gale Hawthorne",
                           "3 / at the first conversation about the bombing of district 12 with Katniss") == Position.parse("3-1")
    # No Halloween after the 4th year: the start of the book, as the authors' code falls back.
    assert period_position("harry_potter", "Ronald Weasley", "5th-year / on Halloween") == Position.parse("5-0")
    # A named moment of another character, or an unknown one, is not placed.
    assert period_position("twilight", "Bella Swan", "4 / at Christmas, 2006") is None
    assert period_position("my_series", "X", "chapter 2-5") == Position.parse("2-5")
    assert period_position("my_series", "X", "after the storm") is None


def test_resolver_builds_characters_from_rows_and_from_the_canon(store):
    row_item = TimeCharaItem.model_validate(published_row())
    who = CharacterResolver(personalities={"hermione granger": "Bookish."})(row_item)
    assert who.work_title == "Harry Potter" and who.author == "J.K. Rowling" and who.scope is None
    assert who.position == Position.parse("2-8") and "Halloween" in who.when and "Chamber of Secrets" in who.when
    assert who.personality == "Bookish."
    unknown = TimeCharaItem.model_validate(published_row(series="mine", character_period="after the storm"))
    with pytest.raises(InputError, match="character_position"):
        CharacterResolver()(unknown)
    built = TimeCharaItem.model_validate(published_row(
        series="The Lanterns of Harrowmere", work="lanterns", character="Wren Callow",
        character_period="end of book 1", character_position="1-3"))
    who = CharacterResolver(store)(built)
    assert who.scope is not None and who.scope.at == Position.parse("1-3") and who.time_label == "end of book 1"
    assert who.personality  # from the canon
