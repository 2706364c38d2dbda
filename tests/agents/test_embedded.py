import pytest

from incanon.agents import Turn, character_at, create_agent
from incanon.canon import CanonStore
from incanon.models import GenerationParams, load_chat_model


@pytest.mark.slow
async def test_narrative_experts_rag_cutoff_on_the_embedded_model(store: CanonStore, embedder):
    model = load_chat_model("embedded")
    agent = create_agent("narrative-experts-rag-cutoff", model, store=store, embedder=embedder,
                         params=GenerationParams(max_tokens=32), expert_max_tokens=64, k=3)
    who = character_at(store, "lamps", "Ada", "after the storm")
    reply = await agent.respond(who, [Turn(speaker="user", text="How did the lighthouse burn down?")])
    assert reply.text.strip()
    assert reply.calls[0].step == "temporal-expert" and reply.calls[-1].step == "answer"
    assert len(reply.calls) in (2, 3)
    positions = {c.id: c.position for c in store.chunks("lamps")}
    assert all(positions[i] <= who.position for i in reply.context)
