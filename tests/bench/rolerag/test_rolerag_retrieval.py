"""The three retrieval strategies, the cutoff through the knowledge scope, and the baselines."""

from __future__ import annotations

import random

from incanon.agents import Turn, character_at, create_agent
from incanon.bench.rolerag import GraphRetriever, RetrievalConfig, parse_entities
from incanon.canon import Position
from incanon.errors import NotFoundError

from rolerag_helpers import agent_model, entity

import pytest

QUESTION = [Turn(speaker="user", text="Tell me about the people in your life.")]


async def test_specific_general_and_irrelevant_entities(graph_store, embedder):
    model = agent_model([entity("Wren Callow"), entity("Dace Morrow"), entity("friends", specificity="general"),
                         entity("smartphone", "object", relevant=False, reason="a modern invention"),
                         entity("Zorblax Quintrell")])
    agent = create_agent("rolerag", model, store=graph_store, embedder=embedder, threshold=0.5)
    who = character_at(graph_store, "lanterns", "Wren", "3-4")
    reply = await agent.respond(who, QUESTION)
    d = reply.details
    assert "Dace Morrow" in d["nodes"]  # specific: found by similarity
    assert d["outside"] == ["smartphone"]  # irrelevant: its reason goes to the prompt
    assert d["unknown"] == ["Zorblax Quintrell"]  # specific but nowhere in the graph
    assert any(r["source"] in ("Wren Callow", "Dace Morrow") and r["target"] in ("Wren Callow", "Dace Morrow")
               for r in d["relations"])  # relation of a found entity to the character
    prompt = model.calls[-1].messages[-1].content
    assert "smartphone: a modern invention" in prompt and "Zorblax Quintrell" in prompt
    assert [c.step for c in reply.calls] == ["hypothesis", "entities", "answer"]
    assert "Who you are:" in prompt  # the character's own node summary


async def test_general_entities_bring_the_heaviest_neighbours_of_that_type(graph_store, embedder):
    model = agent_model([entity("friends", specificity="general")])
    agent = create_agent("rolerag", model, store=graph_store, embedder=embedder, general_k=3)
    who = character_at(graph_store, "lanterns", "Wren", "3-4")
    reply = await agent.respond(who, QUESTION)
    retriever: GraphRetriever = agent.options["graph_retriever"]
    view = retriever.view(who, cutoff=False)
    expected = [n.name for n, _ in view.neighbours(view.find("Wren Callow"), "character", 3)]
    assert reply.details["nodes"] == expected and len(expected) == 3


async def test_cutoff_never_returns_a_relation_after_the_position(graph_store, embedder):
    rng = random.Random(3)
    keys = sorted({c.position.key for c in graph_store.chunks("lanterns")})
    names = ["Jory Callow", "Ilse Varga", "Wren Callow", "Dace Morrow", "Sefa Quill"]
    for _ in range(12):
        at = Position.from_key("chapter", rng.choice(keys))
        me = rng.choice(names)
        model = agent_model([entity(n) for n in rng.sample(names, 3)] + [entity("places", "location", specificity="general")])
        agent = create_agent("rolerag-cutoff", model, store=graph_store, embedder=embedder, threshold=0.3, k=5)
        who = character_at(graph_store, "lanterns", me, at)
        reply = await agent.respond(who, QUESTION)
        for r in reply.details["relations"]:
            assert r["position"] is not None and Position.parse(r["position"]) <= at
        view = agent.options["graph_retriever"].view(who, cutoff=True)
        for name in reply.details["nodes"]:
            assert view.find(name) is not None  # every node is one the character can know
        assert "It is " in model.calls[-1].messages[-1].content


async def test_without_cutoff_the_future_is_there(graph_store, embedder):
    who = character_at(graph_store, "lanterns", "Jory", "1-2-1")
    for method, present in (("rolerag", True), ("rolerag-cutoff", False)):
        model = agent_model([entity("Brother Tobiah")])
        agent = create_agent(method, model, store=graph_store, embedder=embedder, threshold=0.5)
        reply = await agent.respond(who, QUESTION)
        assert ("Brother Tobiah" in reply.details["nodes"]) is present


def test_paper_style_entity_lines_parse():
    text = ("(character<|>Beethoven<|>Beethoven must know himself<|>Yes<|>specific)\n"
            "(object<|>Apollo 11<|>a spaceflight long after his time<|>No<|>specific)\n"
            "(event<|>hobbies<|>general interests<|>yes<|>general)")
    got = parse_entities(text)
    assert [(e.name, e.relevant, e.specificity) for e in got] == [
        ("Beethoven", True, "specific"), ("Apollo 11", False, "specific"), ("hobbies", True, "general")]
    assert parse_entities("nothing useful") == []
    assert RetrievalConfig().k == 3


async def test_a_work_without_a_graph_says_how_to_build_it(tmp_path, world, embedder):
    from incanon.canon import CanonStore

    store = CanonStore.open(tmp_path / "c")
    store.import_world(world)
    agent = create_agent("rolerag", agent_model([]), store=store, embedder=embedder)
    with pytest.raises(NotFoundError, match="incanon graph build"):
        await agent.respond(character_at(store, "lanterns", "Wren", "1-3"), QUESTION)


async def test_baselines(graph_store, embedder):
    who = character_at(graph_store, "lanterns", "Wren", "1-3")
    vanilla = agent_model([])
    reply = await create_agent("vanilla", vanilla).respond(who, QUESTION)
    prompt = vanilla.calls[0].messages[0].content
    assert reply.text and len(vanilla.calls) == 1 and "Wren Callow" in prompt and "Passages" not in prompt
    rag = agent_model([])
    reply = await create_agent("rag-chunks", rag, store=graph_store, embedder=embedder).respond(who, QUESTION)
    assert len(reply.context) == 1 and Position.parse(reply.details["retrieved"][0]["position"]) <= who.position
    assert "Passages from the story" in rag.calls[0].messages[0].content
    profile = agent_model([], answer="Wren is a lamplighter's apprentice.")
    agent = create_agent("profile", profile, store=graph_store)
    reply = await agent.respond(who, QUESTION)
    made = reply.details["profile_calls"]
    assert made > 1 and "Your profile: Wren is a lamplighter" in profile.calls[-1].messages[0].content
    notes = [c for c in profile.calls if "everything it tells about" in c.messages[0].content]
    assert all("Wren" in c.messages[0].content for c in notes)
    again = await agent.respond(who, QUESTION)
    assert again.details["profile_calls"] == 0  # made once per character and position


async def test_cutoff_prompt_uses_only_the_names_known_by_then(graph_store, embedder):
    for at, expected in (("1-1-1", False), ("3-4", True)):
        model = agent_model([entity("Wren Callow")])
        agent = create_agent("rolerag-cutoff", model, store=graph_store, embedder=embedder)
        await agent.respond(character_at(graph_store, "lanterns", "Wren", at), QUESTION)
        prompt = model.calls[-1].messages[-1].content
        assert ("Stormwren" in prompt) is expected  # the flood gives her that name in book 2
