from incanon.agents import CharacterAt, Turn, character_at, create_agent
from incanon.canon import CanonStore, Position
from incanon.models import ScriptedModel

TEMPORAL = "Work out where in the story"
SPATIAL = "physically present"


def _who(at: str = "2-2") -> CharacterAt:
    return CharacterAt(work_title="The Lamp Saga", character="Ada", position=Position.parse(at),
                       time_label="after the storm")


def _model(temporal: str, spatial: str = "Verdict: present") -> ScriptedModel:
    return ScriptedModel(rules=[(TEMPORAL, temporal), (SPATIAL, spatial)], default="In character.")


def _ask(text: str = "How did you feel when the lighthouse burned down?") -> list[Turn]:
    return [Turn(speaker="user", text=text)]


async def test_future_scene_gets_the_future_hint_and_no_spatial_call():
    model = _model("The fire is told in book 3.\nPosition: 3-1\nRelative: future")
    reply = await create_agent("narrative-experts", model).respond(_who(), _ask())
    assert [c.step for c in reply.calls] == ["temporal-expert", "answer"]
    assert not any(SPATIAL in c.messages[-1].content for c in model.calls)
    assert len(reply.hints) == 1 and "later in the story" in reply.hints[0]
    final = model.calls[-1].messages
    assert final[0].role == "system" and "You are Ada" in final[0].content
    assert final[-1].content.startswith("How did you feel") and reply.hints[0] in final[-1].content
    assert reply.details["temporal"] == {"status": "future", "period": "3-1", "claimed": "future",
                                         "basis": "period", "disagrees": False}
    assert reply.details["spatial"] is None and reply.context == []
    assert reply.text == "In character."


async def test_past_scene_asks_the_spatial_expert_and_absence_adds_its_hint():
    model = _model("Position: 2-1\nRelative: past", "Reasoning...\nVerdict: absent")
    reply = await create_agent("narrative-experts", model).respond(_who(), _ask("What did you see in the storm?"))
    assert [c.step for c in reply.calls] == ["temporal-expert", "spatial-expert", "answer"]
    assert len(reply.hints) == 1 and "not present" in reply.hints[0]
    assert reply.hints[0] in model.calls[-1].messages[-1].content
    assert reply.details["spatial"] == "absent"
    spatial_prompt = model.calls[1].messages[-1].content
    assert "What did you see in the storm?" in spatial_prompt and "Ada" in spatial_prompt


async def test_past_and_present_means_no_hint_at_all():
    model = _model("Position: Book 1, Chapter 1", "Verdict: present")
    reply = await create_agent("narrative-experts", model).respond(_who(), _ask("Did you light the lamp?"))
    assert [c.step for c in reply.calls] == ["temporal-expert", "spatial-expert", "answer"]
    assert reply.hints == []
    assert model.calls[-1].messages[-1].content == "Did you light the lamp?"


async def test_the_period_comparison_overrules_the_experts_word():
    # The expert says "past" but names book 3: the character is at 2-2, so it is the future.
    model = _model("Position: 3-1\nRelative: past")
    reply = await create_agent("narrative-experts", model).respond(_who(), _ask())
    assert reply.details["temporal"]["status"] == "future"
    assert reply.details["temporal"]["claimed"] == "past" and reply.details["temporal"]["disagrees"] is True
    assert [c.step for c in reply.calls] == ["temporal-expert", "answer"]
    # And the other way: "future" for a chapter the character has lived through.
    model = _model("Position: 2-2\nRelative: future")
    reply = await create_agent("narrative-experts", model).respond(_who("2-2-5"), _ask())
    assert reply.details["temporal"]["status"] == "past"
    assert [c.step for c in reply.calls] == ["temporal-expert", "spatial-expert", "answer"]


async def test_without_a_period_the_word_decides_and_without_either_it_is_past():
    model = _model("I believe this has not happened yet for her: future.")
    reply = await create_agent("narrative-experts", model).respond(_who(), _ask())
    assert reply.details["temporal"]["basis"] == "claimed" and reply.details["temporal"]["status"] == "future"
    assert len(reply.calls) == 2
    model = _model("I cannot tell.", "no idea")
    reply = await create_agent("narrative-experts", model).respond(_who(), _ask())
    assert reply.details["temporal"]["basis"] == "default" and reply.details["spatial"] is None
    assert [c.step for c in reply.calls] == ["temporal-expert", "spatial-expert", "answer"] and reply.hints == []


async def test_temporal_prompt_names_the_books_and_the_characters_position(store: CanonStore):
    model = _model("Position: 1-1\nRelative: past")
    who = character_at(store, "lamps", "Ada", "after the storm")
    await create_agent("narrative-experts", model).respond(who, _ask())
    prompt = model.calls[0].messages[-1].content
    for piece in ("book 2: Storm", "after the storm", "2-2", "How did you feel when the lighthouse burned down?"):
        assert piece in prompt
    assert "Passages" not in prompt  # the plain method retrieves nothing
    assert model.calls[0].params.max_tokens >= 384


async def test_rag_cutoff_experts_see_the_whole_work_but_the_answer_only_the_past(store: CanonStore, embedder):
    model = _model("Position: 2-1\nRelative: past", "Verdict: absent")
    who = character_at(store, "lamps", "Ada", "after the storm")
    agent = create_agent("narrative-experts-rag-cutoff", model, store=store, embedder=embedder)
    reply = await agent.respond(who, _ask())
    positions = {c.id: c.position for c in store.chunks("lamps")}
    texts = {c.id: c.text for c in store.chunks("lamps")}
    expert_ids = [c["id"] for c in reply.details["expert_context"]]
    assert len(expert_ids) == 6 and any(positions[i] > who.position for i in expert_ids)
    for call in model.calls[:2]:  # both experts get every retrieved chunk
        assert all(texts[i] in call.messages[-1].content for i in expert_ids)
    assert reply.context == [i for i in expert_ids if positions[i] <= who.position]
    final = model.calls[-1].messages[-1].content
    for cid, text in texts.items():
        assert (text in final) == (cid in reply.context)
    assert reply.hints and reply.hints[0] in final
    assert [c.step for c in reply.calls] == ["temporal-expert", "spatial-expert", "answer"]


async def test_rag_cutoff_future_scene_gets_no_passages_at_all(store: CanonStore, embedder):
    model = _model("Position: Book 3, chapter 1\nRelative: future")
    who = character_at(store, "lamps", "Ada", "after the storm")
    agent = create_agent("narrative-experts-rag-cutoff", model, store=store, embedder=embedder)
    reply = await agent.respond(who, _ask())
    assert [c.step for c in reply.calls] == ["temporal-expert", "answer"]
    assert reply.context == [] and "Passages" not in model.calls[-1].messages[-1].content
    assert "Passages" in model.calls[0].messages[-1].content
    assert len(reply.hints) == 1


async def test_lines_echoed_from_the_prompt_are_not_read_as_the_experts_answer():
    # A small model repeating "(story position 2-2)" has not named the question's period.
    echo = "Ada's moment in the story: after the storm (story position 2-2).\nThe answer is:"
    model = _model(echo, "Verdict: <present or absent>")
    reply = await create_agent("narrative-experts", model).respond(_who(), _ask())
    assert reply.details["temporal"]["basis"] == "default"
    assert reply.details["spatial"] is None and reply.hints == []


async def test_a_users_prompt_folder_overrides_the_hint_wording(tmp_path):
    from incanon.templates import PromptLibrary

    (tmp_path / "hint_future.j2").write_text("Spoiler guard: {{ character }} stops at {{ when }}.")
    model = _model("Position: 3-1")
    agent = create_agent("narrative-experts", model, prompts=PromptLibrary(tmp_path))
    reply = await agent.respond(_who(), _ask())
    assert reply.hints == ["Spoiler guard: Ada stops at after the storm."]
    assert reply.hints[0] in model.calls[-1].messages[-1].content
