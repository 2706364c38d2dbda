import pytest

from incanon.judges import HallucinationJudge, HallucinationType, parse_hallucination_type
from incanon.models import ScriptedModel

H = HallucinationType


@pytest.mark.parametrize("text, expected", [
    ("The answer reveals a later event.\nType: temporal", H.TEMPORAL),
    ("Reasoning.\n**Type**: **Spatial error**", H.SPATIAL),
    ("It accepts the fake premise.\nHallucination type = unclarified premise", H.UNCLARIFIED),
    ("Type: entity\nWait, on reflection it is a made-up scene.\nType: Invented", H.INVENTED),
    ("Category - contradiction", H.CONTRADICTORY),
    ("Explanation...\n[[relation]]", H.RELATION),
    ("It leaves out who did it.\n\nincomplete", H.INCOMPLETE),
    ("Type: 5", H.TEMPORAL),  # the prompt numbers the types
    ("type: ENTITY_ERROR", H.ENTITY),
    ("Error type: temporal error (mentions the wedding)", H.TEMPORAL),
])
def test_parses_messy_outputs(text, expected):
    assert parse_hallucination_type(text) is expected


@pytest.mark.parametrize("text", [
    "", "I am not sure.", "Type: something else entirely", "Type: 9", "prototype: entity-free text here ok?",
])
def test_unknown_is_none(text):
    assert parse_hallucination_type(text) is None


async def test_classify_renders_labels_and_parses():
    model = ScriptedModel(default="The agent claims to have seen it.\nType: spatial")
    verdict = await HallucinationJudge(model).classify(
        character="Wren", when="end of book 1", question="Did you see it?", answer="Yes, I saw it all.",
        label="Past: ...", spatial_label="Absence: Wren was not there.", data_type="past-absence",
        question_generation="fact_structured",
    )
    assert verdict.type is H.SPATIAL and not verdict.repaired
    prompt = model.calls[0].messages[0].content
    assert "Absence: Wren was not there." in prompt and "past-absence" in prompt


async def test_unreadable_output_gets_one_repair_then_none_with_raw_kept():
    model = ScriptedModel(queue=["This is bad.", "no clue, sorry"])
    verdict = await HallucinationJudge(model).classify(
        character="Wren", question="Q?", answer="A.", label="L", data_type="future")
    assert verdict.type is None and verdict.repaired
    assert "This is bad." in verdict.raw and "no clue" in verdict.raw
    assert len(model.calls) == 2


async def test_repair_can_recover_the_type():
    model = ScriptedModel(queue=["Hmm.", "temporal"])
    verdict = await HallucinationJudge(model).classify(
        character="Wren", question="Q?", answer="A.", label="L", data_type="future")
    assert verdict.type is H.TEMPORAL and verdict.repaired
