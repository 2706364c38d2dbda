import pytest

from incanon.agents import ExamplePicker, Turn, character_at, create_agent
from incanon.canon import CanonStore
from incanon.errors import ConfigError
from incanon.models import ScriptedModel
from incanon.templates import default_library

STORM = "What did you see when the storm tore the ferry loose?"


async def _ask(store: CanonStore, name: str, at: str, question: str, about: str | None = None, **options):
    model = ScriptedModel(default="Hm.")
    agent = create_agent("few-shot", model, store=store, **options)
    reply = await agent.respond(character_at(store, "lamps", name, at),
                                [Turn(speaker="user", text=question, about=about)])
    return reply, model


async def test_four_examples_one_per_type_from_the_same_work_in_one_call(store: CanonStore):
    reply, model = await _ask(store, "Bram", "3", "How are you today?")
    assert len(model.calls) == 1 and [c.step for c in reply.calls] == ["answer"]
    examples = reply.details["examples"]
    assert [e["data_type"] for e in examples] == ["future", "past-absence", "past-presence", "past-only"]
    # Every example is canon of this work: a probe of the store, or a scene of it.
    probes = {(p.character, p.question, p.gold_response) for p in store.probes("lamps")}
    scenes = {s.id: s.summary for s in store.scenes("lamps")}
    system = model.calls[0].messages[0].content
    for e in examples:
        assert e["event"] in scenes
        if e["source"] == "probe":
            assert (e["character"], e["question"], e["answer"]) in probes
        else:
            assert scenes[e["event"]] in e["question"]
        assert e["question"] in system and e["answer"] in system
    assert len({e["event"] for e in examples}) == 4  # four different scenes
    assert reply.context == [f"example:{e['data_type']}:{e['event']}" for e in examples]
    assert model.calls[0].messages[-1].content == "How are you today?"


async def test_the_asked_scene_is_never_an_example(store: CanonStore):
    # Same question as a probe about s3: neither that probe nor anything else about s3 is shown.
    default, _ = await _ask(store, "Bram", "3", "How are you today?")
    assert {"s1", "s3"} <= {e["event"] for e in default.details["examples"]}
    reply, model = await _ask(store, "Bram", "3", STORM)
    assert all(e["event"] != "s3" for e in reply.details["examples"])
    assert "ferry loose" not in model.calls[0].messages[0].content
    # A question quoting a scene summary (TimeChara's structured questions) excludes that scene.
    reply, _ = await _ask(store, "Bram", "3", "Tell me how you felt when Ada lit the harbour lamp "
                                               "for the first time while Bram watched.")
    assert all(e["event"] != "s1" for e in reply.details["examples"])
    # The caller can name the scene outright.
    default, _ = await _ask(store, "Bram", "3", "Anything new?")
    assert "s2" in {e["event"] for e in default.details["examples"]}
    reply, _ = await _ask(store, "Bram", "3", "Anything new?", about="s2")
    assert all(e["event"] != "s2" for e in reply.details["examples"])


async def test_examples_never_reach_past_the_characters_position(store: CanonStore):
    scenes = {s.id: s.position for s in store.scenes("lamps")}
    for name, at in [("Ada", "end of book 1"), ("Ada", "after the storm"), ("Bram", "start of book 2")]:
        who = character_at(store, "lamps", name, at)
        reply, model = await _ask(store, name, at, "How are you?")
        for e in reply.details["examples"]:
            assert scenes[e["event"]] <= who.position, (name, at, e)
            assert not e["spoils"]
        assert "lighthouse burned" not in model.calls[0].messages[0].content.lower()
    # At the end of book 1 nothing earlier can show a future event: that type is left out.
    reply, _ = await _ask(store, "Ada", "end of book 1", "How are you?")
    assert "future" in reply.details["missing_types"]


async def test_allow_spoilers_fills_every_type_with_the_nearest_example(store: CanonStore):
    reply, _ = await _ask(store, "Ada", "end of book 1", "How are you?", allow_spoilers=True)
    types = [e["data_type"] for e in reply.details["examples"]]
    assert types == ["future", "past-absence", "past-presence", "past-only"]
    assert any(e["spoils"] for e in reply.details["examples"])


def test_choice_is_deterministic(store: CanonStore):
    picks = [
        ExamplePicker(store, default_library()).pick("lamps", character_at(store, "lamps", "Bram", "3").position,
                                                     "How are you?")
        for _ in range(3)
    ]
    assert picks[0] == picks[1] == picks[2]


def test_few_shot_needs_a_store():
    with pytest.raises(ConfigError, match="store="):
        create_agent("few-shot", ScriptedModel(default="x"))
