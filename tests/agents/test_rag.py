import pytest

from incanon.agents import CharacterAt, Turn, character_at, create_agent
from incanon.canon import CanonStore, Position
from incanon.errors import ConfigError, InputError
from incanon.models import ScriptedModel
from incanon.retrieval import ChunkRetriever

FIRE = [Turn(speaker="user", text="How did the lighthouse burn down?")]


async def _run(method: str, store: CanonStore, who: CharacterAt, embedder, **options):
    model = ScriptedModel(default="Burned? No.")
    agent = create_agent(method, model, store=store, embedder=embedder, **options)
    return await agent.respond(who, FIRE), model


async def test_rag_cutoff_never_puts_a_later_chunk_in_the_prompt(store: CanonStore, embedder):
    positions = {c.id: c.position for c in store.chunks("lamps")}
    texts = {c.id: c.text for c in store.chunks("lamps")}
    for name, at in [("Ada", "end of book 1"), ("Ada", "after the storm"), ("Bram", "start of book 2")]:
        who = character_at(store, "lamps", name, at)
        reply, model = await _run("rag-cutoff", store, who, embedder)
        assert reply.context and all(positions[i] <= who.position for i in reply.context)
        prompt = model.calls[0].messages[-1].content
        for cid, text in texts.items():
            assert (text in prompt) == (cid in reply.context)


async def test_rag_without_cutoff_can_hand_the_agent_the_future(store: CanonStore, embedder):
    who = character_at(store, "lamps", "Ada", "end of book 1")
    reply, model = await _run("rag", store, who, embedder)
    positions = {c.id: c.position for c in store.chunks("lamps")}
    assert len(reply.context) == 6
    assert any(positions[i] > who.position for i in reply.context)
    assert "the lighthouse burned to the ground" in model.calls[0].messages[-1].content
    assert reply.details["cutoff"] is False and reply.details["retrieved"][0]["id"] == reply.context[0]


async def test_passages_are_attached_to_the_question_in_one_call(store: CanonStore, embedder):
    who = character_at(store, "lamps", "Ada", "after the storm")
    reply, model = await _run("rag-cutoff", store, who, embedder, k=2)
    assert len(model.calls) == 1 and [c.step for c in reply.calls] == ["answer"]
    system, asked = model.calls[0].messages
    assert system.role == "system" and "You are Ada" in system.content
    assert asked.content.startswith("How did the lighthouse burn down?")
    assert len(reply.context) == 2 and reply.hints == []
    first = reply.details["retrieved"][0]
    assert f"[{first['position']}]" in asked.content


async def test_a_shared_retriever_and_history_turns(store: CanonStore, embedder):
    retriever = ChunkRetriever(store, embedder)
    model = ScriptedModel(default="ok")
    agent = create_agent("rag-cutoff", model, retriever=retriever)
    who = character_at(store, "lamps", "Ada", "after the storm")
    await agent.respond(who, [Turn(speaker="user", text="Hello"), Turn(speaker="Ada", text="Evening."),
                              Turn(speaker="user", text="Who mended the harbour wall?")])
    roles = [m.role for m in model.calls[0].messages]
    assert roles == ["system", "user", "assistant", "user"]
    assert model.calls[0].messages[1].content == "Hello"  # only the answered turn gets passages
    assert "hauled stones" in model.calls[0].messages[-1].content


def test_retrieval_methods_need_a_store_or_a_retriever():
    for method in ("rag", "rag-cutoff", "narrative-experts-rag-cutoff"):
        with pytest.raises(ConfigError, match="store= or retriever="):
            create_agent(method, ScriptedModel(default="x"))


async def test_retrieval_needs_a_knowledge_scope(store: CanonStore, embedder):
    who = CharacterAt(work_title="The Lamp Saga", character="Ada", position=Position.parse("1"))
    agent = create_agent("rag", ScriptedModel(default="x"), store=store, embedder=embedder)
    with pytest.raises(InputError, match="knowledge scope"):
        await agent.respond(who, FIRE)


def _small_context_model(max_passages: int) -> ScriptedModel:
    from incanon.models import ContextOverflowError

    def reply(messages):
        shown = sum(line.startswith("[") for line in messages[-1].content.splitlines())
        if shown > max_passages:
            raise ContextOverflowError("too long", prompt_tokens=5000, n_ctx=4096)
        return f"answered with {shown}"
    return ScriptedModel(default=reply)


async def test_passages_are_dropped_lowest_first_until_the_prompt_fits(store: CanonStore, embedder):
    model = _small_context_model(2)
    who = character_at(store, "lamps", "Ada", "after the storm")
    agent = create_agent("rag", model, store=store, embedder=embedder)
    reply = await agent.respond(who, FIRE)
    ranked = [c["id"] for c in reply.details["retrieved"]]
    assert reply.text == "answered with 2" and reply.context == ranked[:2]
    assert reply.details["dropped_for_context"] == 4
    assert [c.step for c in reply.calls] == ["answer"]  # failed attempts are not answers


async def test_experts_shrink_their_passages_too(store: CanonStore, embedder):
    from incanon.models import ContextOverflowError

    def reply(messages):
        last = messages[-1].content
        if sum(line.startswith("[") for line in last.splitlines()) > 3:
            raise ContextOverflowError("too long", prompt_tokens=5000, n_ctx=4096)
        if "Work out where in the story" in last:
            return "Position: 2-1"
        return "Verdict: absent" if "physically present" in last else "ok"

    model = ScriptedModel(default=reply)
    who = character_at(store, "lamps", "Ada", "after the storm")
    agent = create_agent("narrative-experts-rag-cutoff", model, store=store, embedder=embedder)
    out = await agent.respond(who, FIRE)
    assert [c.step for c in out.calls] == ["temporal-expert", "spatial-expert", "answer"]
    assert out.details["temporal"]["period"] == "2-1" and out.details["spatial"] == "absent"
    assert sum(line.startswith("[") for line in out.calls[0].messages[-1].content.splitlines()) == 3


async def test_a_prompt_too_long_even_without_passages_still_fails(store: CanonStore, embedder):
    from incanon.models import ContextOverflowError

    model = _small_context_model(-1)
    agent = create_agent("rag-cutoff", model, store=store, embedder=embedder)
    with pytest.raises(ContextOverflowError):
        await agent.respond(character_at(store, "lamps", "Ada", "after the storm"), FIRE)
