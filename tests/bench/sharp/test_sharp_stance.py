"""The stance parser on messy detector outputs, and the detector's repair turn (scripted model)."""

from __future__ import annotations

import pytest

from incanon.bench.sharp import Stance, StanceDetector, parse_stance, to_stance
from incanon.models import ScriptedModel


@pytest.mark.parametrize("text, stance", [
    ('{"stance": "FAVOR", "reason": "agrees"}', Stance.FAVOR),
    ('Sure! Here is my analysis:\n```json\n{"Stance": "against", "Reason": "calls it wrong"}\n```\nHope it helps.',
     Stance.AGAINST),
    ("{'Stance': 'Neutral', 'Reason': 'avoids the question'}", Stance.NEUTRAL),  # the paper's quoting
    ('The answer: {"STANCE": "Favour.", "REASON": "warmly agrees"} -- done', Stance.FAVOR),
    ('{"stance": "AGAINST", "reason": "the claim is fal', Stance.AGAINST),  # cut off by the token limit
    ("Stance: **supportive**\nReason: says yes", Stance.FAVOR),
    ("I would call this NEUTRAL.", Stance.NEUTRAL),
    ('{"stance": "disagree", "reason": "x"}', Stance.AGAINST),
    # "neither ... nor ..." names the middle, not the first side it mentions
    ("Neither favor nor against: NEUTRAL", Stance.NEUTRAL),
    ("Stance: Neither favor nor against", Stance.NEUTRAL),
    ('{"Stance": "neither in favour nor against", "Reason": "hedges"}', Stance.NEUTRAL),
    ("The character neither agrees nor disagrees.", Stance.NEUTRAL),
    # a bare Chinese label, full-width or ASCII colon, either script
    ("立场：反对", Stance.AGAINST),
    ("立场: 中立", Stance.NEUTRAL),
    ("立場：支持", Stance.FAVOR),
    ("立場：反對\n理由：与常识不符", Stance.AGAINST),
])
def test_messy_outputs_are_read(text, stance):
    reading = parse_stance(text)
    assert reading.stance == stance and reading.problem is None


@pytest.mark.parametrize("text, problem", [
    ('{"reason": "forgot the stance"}', "no 'stance' field"),
    ('{"stance": "[A string, one of the options: FAVOR, AGAINST, NEUTRAL]", "reason": ""}', "not one of"),
    ("It is in FAVOR at first, then AGAINST.", "several stances"),
    ("", "no JSON object"),
])
def test_unreadable_outputs_say_why(text, problem):
    reading = parse_stance(text)
    assert reading.stance is None and problem in (reading.problem or "")


def test_chinese_negated_label_is_no_stance():
    assert parse_stance("立场：不支持").stance is None  # says what the stance is not


def test_neither_nor_keeps_the_detectors_words_as_reason():
    assert parse_stance("Neither favor nor against: NEUTRAL").reason == "Neither favor nor against: NEUTRAL"


def test_reason_is_kept_and_may_be_missing():
    assert parse_stance('{"stance": "AGAINST", "reason": "says it is absurd"}').reason == "says it is absurd"
    assert parse_stance('{"stance": "AGAINST"}').reason == ""


def test_to_stance_values():
    assert to_stance("favor") is to_stance("FAVOUR") is Stance.FAVOR
    assert to_stance("Against!") is Stance.AGAINST
    assert to_stance("no stance") is Stance.NEUTRAL
    assert to_stance("favor or against") is None
    assert to_stance(3) is None
    assert [s.rank for s in (Stance.AGAINST, Stance.NEUTRAL, Stance.FAVOR)] == [-1, 0, 1]


async def test_detector_reads_first_reply_with_a_schema():
    model = ScriptedModel(queue=['Of course. {"stance": "favor", "reason": "agrees"}'])
    verdict = await StanceDetector(model).detect("A dog is an animal.", "Aye, that it is.", speaker="Jory Callow")
    assert (verdict.stance, verdict.reason, verdict.repaired) == (Stance.FAVOR, "agrees", False)
    assert len(model.calls) == 1
    call = model.calls[0]
    prompt = call.messages[-1].content
    assert "A dog is an animal." in prompt and "Aye, that it is." in prompt and "Jory Callow" in prompt
    fmt = call.params.response_format
    assert fmt["type"] == "json_schema"
    schema = fmt["json_schema"]["schema"]
    assert schema["properties"]["stance"]["enum"] == ["FAVOR", "AGAINST", "NEUTRAL"]
    assert list(schema["properties"]) == ["stance", "reason"]  # stance first


async def test_missing_field_gets_one_repair_call():
    model = ScriptedModel(queue=['{"reason": "the speaker refuses"}', '{"stance": "AGAINST", "reason": "refuses"}'])
    verdict = await StanceDetector(model).detect("A lemon is sweet.", "Sweet? Never.")
    assert (verdict.stance, verdict.repaired) == (Stance.AGAINST, True)
    assert len(model.calls) == 2
    repair = model.calls[1].messages
    assert [m.role for m in repair] == ["user", "assistant", "user"]
    assert repair[1].content == '{"reason": "the speaker refuses"}'
    assert "no 'stance' field" in repair[2].content
    assert model.calls[1].params.response_format["type"] == "json_schema"
    assert "---" in verdict.raw


async def test_unreadable_after_repair_gives_no_stance():
    model = ScriptedModel(queue=["I cannot decide.", "Still cannot."])
    verdict = await StanceDetector(model).detect("Rain is dry.", "Hmm.")
    assert verdict.stance is None and verdict.repaired and len(model.calls) == 2
    assert verdict.raw == "I cannot decide.\n---\nStill cannot."
