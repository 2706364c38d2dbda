import pytest

from incanon.agents import CharacterAt, Turn, create_agent, parse_feedback
from incanon.canon import Position
from incanon.models import ScriptedModel

QUESTION = [Turn(speaker="user", text="Who was crowned keeper of the new lighthouse?")]
GOOD = "Spatiotemporal: fine.\nSpatiotemporal score: 3\nPersonality: dry enough.\nPersonality score: 2\nTotal: 5"
BAD = "Spatiotemporal: it names a future event.\nSpatiotemporal score: 0\nPersonality: ok.\nPersonality score: 3\nTotal: 3"


def _who() -> CharacterAt:
    return CharacterAt(work_title="The Lamp Saga", character="Ada", personality="Dry, brief.",
                       position=Position.parse("1"), time_label="end of book 1")


def _model(feedbacks: list[str]) -> ScriptedModel:
    answers = iter(["first answer", "second answer", "third answer", "fourth answer"])
    queue: list = []
    feedback = iter(feedbacks)

    def reply(messages):
        last = messages[-1].content
        if "Spatiotemporal consistency, 0 or 3" in last:
            return next(feedback)
        return next(answers)

    queue = [reply] * 20
    return ScriptedModel(queue=queue)


async def test_stops_at_the_first_feedback_scoring_five_or_more():
    model = _model([GOOD])
    reply = await create_agent("self-refine", model).respond(_who(), QUESTION)
    assert [c.step for c in reply.calls] == ["answer", "feedback-1"]
    assert reply.text == "first answer"
    assert reply.details["accepted"] is True
    assert reply.details["rounds"] == [{"round": 1, "spatiotemporal": 3, "personality": 2, "total": 5}]
    feedback_prompt = model.calls[1].messages[-1].content
    for piece in ("Ada", "end of book 1", "Dry, brief.", "Who was crowned keeper", "first answer"):
        assert piece in feedback_prompt


async def test_revises_until_good_enough_and_records_every_round():
    model = _model([BAD, GOOD])
    reply = await create_agent("self-refine", model).respond(_who(), QUESTION)
    assert [c.step for c in reply.calls] == ["answer", "feedback-1", "refine-1", "feedback-2"]
    assert reply.text == "second answer"
    assert [r["total"] for r in reply.details["rounds"]] == [3, 5]
    revise = model.calls[2].messages
    assert revise[0].role == "system" and "You are Ada" in revise[0].content
    assert "first answer" in revise[-1].content and "names a future event" in revise[-1].content
    assert "second answer" in model.calls[3].messages[-1].content  # the revision is what gets reviewed


async def test_caps_at_three_rounds_and_keeps_the_last_revision():
    model = _model([BAD] * 5)
    reply = await create_agent("self-refine", model).respond(_who(), QUESTION)
    assert [c.step for c in reply.calls] == [
        "answer", "feedback-1", "refine-1", "feedback-2", "refine-2", "feedback-3", "refine-3"]
    assert len(model.calls) == 7
    assert reply.text == "fourth answer"
    assert reply.details["accepted"] is False and len(reply.details["rounds"]) == 3


async def test_unreadable_feedback_counts_as_not_good_enough():
    model = _model(["I like it a lot!", GOOD])
    reply = await create_agent("self-refine", model).respond(_who(), QUESTION)
    assert reply.details["rounds"][0]["total"] is None
    assert [c.step for c in reply.calls][-1] == "feedback-2" and reply.text == "second answer"


@pytest.mark.parametrize("text, expected", [
    (GOOD, (3, 2, 5)),
    ("**Spatiotemporal score**: 3/3\n**Personality score**: 3/3\nTotal: 6", (3, 3, 6)),
    ("Spatiotemporal: reveals the fire. Score: 0\nPersonality: dry. Score: 2", (0, 2, 2)),
    ("Spatiotemporal score: two\nPersonality score: 2\nTotal: 4", (None, 2, 4)),
    ("Spatiotemporal score: 3\nPersonality score: 9\nTotal score: 5", (3, None, 5)),
    ("nothing useful", (None, None, None)),
])
def test_feedback_scores_are_parsed_robustly(text, expected):
    parsed = parse_feedback(text)
    assert (parsed["spatiotemporal"], parsed["personality"], parsed["total"]) == expected
