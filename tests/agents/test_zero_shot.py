import pytest

from incanon.agents import CharacterAt, Turn, agent_names, create_agent
from incanon.canon import Position
from incanon.errors import ConfigError
from incanon.models import ScriptedModel


def _who() -> CharacterAt:
    return CharacterAt(
        work_title="The Test Saga", author="A. Writer", character="Ada", aliases=["the Warden"],
        profile="A lamplighter.", personality="Dry, brief.", position=Position.parse("1-2"),
        time_label="end of chapter 2", time_description="She has just lost her post.",
    )


async def test_zero_shot_makes_one_call_with_persona_and_question():
    model = ScriptedModel(default="  I was at the harbour.  ")
    agent = create_agent("zero-shot", model)
    reply = await agent.respond(_who(), [Turn(speaker="user", text="Where were you?")])
    assert reply.text == "I was at the harbour."
    assert reply.method == "zero-shot"
    assert len(model.calls) == 1 and len(reply.calls) == 1
    system, question = model.calls[0].messages
    assert system.role == "system" and question.role == "user"
    for piece in ("Ada", "the Warden", "The Test Saga", "end of chapter 2", "lost her post", "Dry, brief."):
        assert piece in system.content
    assert question.content == "Where were you?"


async def test_dialogue_history_maps_speakers_to_roles():
    model = ScriptedModel(default="ok")
    agent = create_agent("zero-shot", model)
    await agent.respond(_who(), [
        Turn(speaker="user", text="Hello"), Turn(speaker="Ada", text="Evening."),
        Turn(speaker="Bram", text="Ada, look!"), Turn(speaker="user", text="What now?"),
    ])
    roles = [(m.role, m.content) for m in model.calls[0].messages[1:]]
    assert roles == [("user", "Hello"), ("assistant", "Evening."), ("user", "Bram: Ada, look!"), ("user", "What now?")]


def test_unknown_method_lists_known_ones():
    with pytest.raises(ConfigError, match="zero-shot"):
        create_agent("telepathy", ScriptedModel(default="x"))
    assert "zero-shot" in agent_names()
