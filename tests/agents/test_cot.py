from incanon.agents import CharacterAt, Turn, create_agent
from incanon.canon import Position
from incanon.models import ScriptedModel

QUESTION = [Turn(speaker="user", text="How did the lighthouse burn down?")]


def _who() -> CharacterAt:
    return CharacterAt(work_title="The Lamp Saga", character="Ada", position=Position.parse("1"),
                       time_label="end of book 1")


async def test_one_call_and_only_the_marked_answer_is_returned():
    reasoning = ("Reasoning: Ada stands at the end of book 1. The fire is in book 3, so it is in her "
                 "future and she cannot know it.\nAnswer: \"Burned down? It was standing this morning.\"")
    model = ScriptedModel(default=reasoning)
    reply = await create_agent("guided-cot", model).respond(_who(), QUESTION)
    assert reply.text == "Burned down? It was standing this morning."
    assert "book 3" not in reply.text and "Reasoning" not in reply.text
    assert [c.step for c in reply.calls] == ["reasoning"] and len(model.calls) == 1
    assert reply.calls[0].output == reasoning  # the reasoning is kept in the trace
    asked = model.calls[0].messages[-1].content
    assert asked.startswith("How did the lighthouse burn down?")
    assert "step by step" in asked and "end of book 1" in asked and "Answer:" in asked
    assert reply.details == {"answer_marked": True}


async def test_last_marker_wins_and_markdown_is_cleaned():
    model = ScriptedModel(default="Reasoning: the answer: maybe.\n**Final answer:** I never saw it.")
    reply = await create_agent("guided-cot", model).respond(_who(), QUESTION)
    assert reply.text == "I never saw it."


async def test_without_a_marker_a_second_call_writes_the_reply_and_reasoning_stays_out():
    model = ScriptedModel(queue=["The fire is after book 1, so she does not know of it.",
                                 "A fire? Not that I've heard of."])
    reply = await create_agent("guided-cot", model).respond(_who(), QUESTION)
    assert reply.text == "A fire? Not that I've heard of."
    assert [c.step for c in reply.calls] == ["reasoning", "answer"]
    follow_up = model.calls[1].messages
    assert follow_up[0].role == "system" and "Ada" in follow_up[0].content
    assert "The fire is after book 1" in follow_up[-1].content  # notes go to the model, not the user
    assert "after book 1" not in reply.text
    assert reply.details == {"answer_marked": False}


async def test_a_second_call_that_still_reasons_is_cut_at_its_marker():
    model = ScriptedModel(queue=["hmm", "Reasoning: future event.\nAnswer: No idea what you mean."])
    reply = await create_agent("guided-cot", model).respond(_who(), QUESTION)
    assert reply.text == "No idea what you mean."


async def test_reasoning_resumed_after_the_answer_is_cut_off():
    model = ScriptedModel(default="Reasoning: future.\nAnswer: Never heard of it.\nReasoning: because book 3.")
    reply = await create_agent("guided-cot", model).respond(_who(), QUESTION)
    assert reply.text == "Never heard of it."


async def test_paper_zero_shot_cot_adds_the_trigger_and_returns_the_whole_output():
    output = "Reasoning: it is my first year.\nSo I cannot know.\nAnswer: No idea."
    model = ScriptedModel(default=output)
    reply = await create_agent("zero-shot-cot", model).respond(_who(), QUESTION)
    (call,) = reply.calls
    assert call.messages[-1].content.endswith("\nLet's think step by step.")
    assert call.messages[-1].content.startswith(QUESTION[-1].text)
    assert reply.text == output  # judged on the full output, reasoning included, as in the paper
