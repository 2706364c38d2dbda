import pytest

from incanon.judges import PersonalityJudge, parse_score
from incanon.models import ScriptedModel


async def _judge(*outputs: str) -> tuple:
    model = ScriptedModel(queue=list(outputs))
    verdict = await PersonalityJudge(model).judge(
        character="Wren Callow", when="end of book 1", question="How did you feel?",
        answer="Like a hammer in my chest.", personality="Stubborn, loyal, quick to laugh.",
    )
    return verdict, model


async def test_prompt_carries_personality_and_asks_reasoning_first():
    verdict, model = await _judge("She sounds like herself: stubborn and warm.\nScore: 6")
    assert verdict.score == 6 and not verdict.repaired
    prompt = model.calls[0].messages[0].content
    assert "Stubborn, loyal, quick to laugh." in prompt and "Wren Callow" in prompt
    # Reasoning is asked before the score line.
    assert prompt.index("comparison first") < prompt.index("Score: N")


@pytest.mark.parametrize("output, expected", [
    ("Reasoning... The tone fits.\n\n**Score**: 5\n", 5),
    ("Score: 3\nOn reflection the answer is better than that.\nScore: 6\n6", 6),  # last wins
    ("I would rate it a Score of seven.", 7),  # number word
    ("Analysis.\nFinal rating = 4/7", 4),
    ("blah\n[[2]]", 2),
    ("The answer is fine.\n5", 5),  # bare last line
    ("Score: 9\nScore: 4", 4),  # out of range ignored
])
async def test_messy_outputs_parse_without_repair(output, expected):
    verdict, model = await _judge(output)
    assert verdict.score == expected and not verdict.repaired and len(model.calls) == 1


async def test_no_score_triggers_one_repair_call():
    verdict, model = await _judge("It is hard to say; she is sometimes like this.", "Score: 4")
    assert verdict.score == 4 and verdict.repaired
    assert len(model.calls) == 2
    assert "1 to 7" in model.calls[1].messages[-1].content


async def test_repair_that_fails_gives_none_never_a_string():
    verdict, _ = await _judge("no idea", "maybe good?")
    assert verdict.score is None and verdict.repaired


async def test_empty_personality_still_renders():
    model = ScriptedModel(default="Score: 4")
    await PersonalityJudge(model).judge(character="Dace", question="Q?", answer="A.", personality="")
    assert "rely on how Dace is portrayed" in model.calls[0].messages[0].content


def test_zero_is_outside_the_personality_range():
    assert parse_score("Score: 0", (1, 7)) is None
