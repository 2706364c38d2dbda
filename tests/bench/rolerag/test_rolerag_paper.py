"""RoleRAG's retrieval under the paper protocol (the authors' ``local_query``) against incanon's."""

from __future__ import annotations

from incanon.agents import Turn, character_at, create_agent
from incanon.bench.rolerag import GraphRetriever, RetrievalConfig
from incanon.bench.rolerag.paper import PAPER, truncate
from incanon.canon import Position
from incanon.models import ScriptedModel
from incanon.tokens import count_tokens

from rolerag_helpers import agent_model, entity

QUESTION = [Turn(speaker="user", text="Tell me about the people in your life.")]


def record(name: str, type_: str = "character", known: str = "Yes", level: str = "specific") -> str:
    return f"({type_}<|>{name}<|>a reason<|>{known}<|>{level})"


def paper_model(*records: str, bad_replies: int = 0) -> ScriptedModel:
    """Answers the one entity call with ``records`` (after ``bad_replies`` unreadable replies)."""
    state = {"bad": bad_replies}

    def reply(messages):
        text = messages[-1].content
        if "Records:" in text:
            if state["bad"] > 0:
                state["bad"] -= 1
                return "I cannot tell."
            return "##\n".join(records) + "\n<|COMPLETE|>"
        return "In character, I answer."

    return ScriptedModel(default=reply)


def paper_agent(model, graph_store, embedder, method="rolerag", **overrides):
    config = RetrievalConfig.for_protocol("paper", **overrides)
    return create_agent(method, model, store=graph_store, embedder=embedder, retrieval_config=config)


def test_the_protocols_values():
    paper = RetrievalConfig.for_protocol("paper")
    assert (paper.k, paper.threshold, paper.general_k, paper.source_tokens, paper.relation_tokens,
            paper.entity_retries) == (3, 0.55, 10, 1000, 1200, 5)
    assert paper.one_call and paper.drop_first_specific and paper.type_after_top_k and paper.general_pooled
    assert RetrievalConfig.for_protocol("incanon") == RetrievalConfig()
    assert RetrievalConfig.for_protocol("paper", k=5).k == 5 and PAPER["k"] == 3


async def test_one_call_and_the_first_specific_entity_dropped(graph_store, embedder):
    # The first specific entity is dropped whoever it is (here Dace, not the speaker).
    model = paper_model(record("Dace Morrow"), record("Wren Callow"), record("Jory Callow"))
    agent = paper_agent(model, graph_store, embedder)
    reply = await agent.respond(character_at(graph_store, "lanterns", "Wren", "3-4"), QUESTION)
    assert [c.step for c in reply.calls] == ["entities", "answer"]
    d = reply.details
    assert d["dropped_self"] == ["Dace Morrow"] and d["hypothesis"] == ""
    assert d["nodes"] == ["Jory Callow"]  # Wren is the speaker's own node: not an entity of the context
    # incanon's protocol drops the entity that names the speaker instead, and keeps Dace.
    mine = agent_model([entity("Dace Morrow"), entity("Wren Callow"), entity("Jory Callow")])
    own = await create_agent("rolerag", mine, store=graph_store, embedder=embedder).respond(
        character_at(graph_store, "lanterns", "Wren", "3-4"), QUESTION)
    assert own.details["dropped_self"] == ["Wren Callow"] and "Dace Morrow" in own.details["nodes"]


async def test_top_k_over_all_types_then_the_type(graph_store, embedder):
    # "the lamps" as an organization: the 3 nearest over all types are a location, the Council and
    # an event, so only the Council is kept; within the type, the Guild comes too.
    who = character_at(graph_store, "lanterns", "Wren", "3-4")
    model = paper_model(record("Wren Callow"), record("the lamps", "organization"))
    paper = await paper_agent(model, graph_store, embedder, threshold=0.3).respond(who, QUESTION)
    assert paper.details["nodes"] == ["the Council"]
    within = await paper_agent(paper_model(record("Wren Callow"), record("the lamps", "organization")),
                               graph_store, embedder, threshold=0.3, type_after_top_k=False).respond(who, QUESTION)
    assert within.details["nodes"] == ["the Council", "Lamplighters' Guild"]


async def test_general_topics_are_pooled(graph_store, embedder):
    who = character_at(graph_store, "lanterns", "Wren", "3-4")
    records = (record("Wren Callow"), record("friends", level="general"), record("guilds", "organization", level="general"))
    pooled = await paper_agent(paper_model(*records), graph_store, embedder, general_k=3).respond(who, QUESTION)
    retriever: GraphRetriever = GraphRetriever(graph_store, ScriptedModel(), embedder)
    view = retriever.view(who, cutoff=False)
    me = view.find("Wren Callow")
    heaviest = [n.name for n, _ in view.neighbours(me) if n.type in ("character", "organization")][:3]
    assert pooled.details["nodes"] == heaviest and "Lamplighters' Guild" not in heaviest
    per_topic = await paper_agent(paper_model(*records), graph_store, embedder, general_k=3,
                                  general_pooled=False, flow="incanon").respond(who, QUESTION)
    assert "Lamplighters' Guild" in per_topic.details["nodes"] and len(per_topic.details["nodes"]) == 4
    per_type = await paper_agent(paper_model(*records), graph_store, embedder, general_k=3,
                                 general_pooled=False).respond(who, QUESTION)
    assert per_type.details["nodes"] == per_topic.details["nodes"]


async def test_source_chunks_and_relation_budget(graph_store, embedder):
    who = character_at(graph_store, "lanterns", "Wren", "3-4")
    model = paper_model(record("Wren Callow"), record("Dace Morrow"), record("Ottilie Brand"), record("Jory Callow"))
    reply = await paper_agent(model, graph_store, embedder).respond(who, QUESTION)
    passages = reply.details["passages"]
    assert passages  # the chunks the found entities and the speaker share most
    prompt = model.calls[-1].messages[-1].content
    assert "Passages from the story:" in prompt
    assert sum(count_tokens(p) for p in prompt.split("Passages from the story:")[1:]) > 0
    incanon = await create_agent("rolerag", agent_model([entity("Dace Morrow")]), store=graph_store,
                                 embedder=embedder).respond(who, QUESTION)
    assert incanon.details["passages"] == []  # incanon's protocol puts no source text in
    tight = await paper_agent(paper_model(record("Wren Callow"), record("Dace Morrow"), record("Ottilie Brand"),
                                          record("Jory Callow")), graph_store, embedder,
                              relation_tokens=25).respond(who, QUESTION)
    kept = tight.details["relations"]
    assert len(kept) < len(reply.details["relations"])
    assert sum(count_tokens(r["description"]) for r in kept) <= 25
    assert [r["weight"] for r in kept] == sorted((r["weight"] for r in kept), reverse=True)


def test_truncate_keeps_the_prefix_within_the_budget():
    items = ["one two", "three four five", "six"]
    budget = count_tokens("one two") + count_tokens("three four five")
    assert truncate(items, str, budget) == items[:2]
    assert truncate(items, str, budget - 1) == items[:1] and truncate(items, str, 0) == []


async def test_unreadable_entity_replies_are_asked_again(graph_store, embedder):
    who = character_at(graph_store, "lanterns", "Wren", "3-4")
    reply = await paper_agent(paper_model(record("Wren Callow"), record("Dace Morrow"), bad_replies=2),
                              graph_store, embedder).respond(who, QUESTION)
    assert [c.step for c in reply.calls] == ["entities"] * 3 + ["answer"] and reply.details["nodes"] == ["Dace Morrow"]
    never = await paper_agent(paper_model(bad_replies=99), graph_store, embedder).respond(who, QUESTION)
    assert [c.step for c in never.calls] == ["entities"] * 6 and never.details["nodes"] == [] and never.text == ""


async def test_cutoff_holds_under_the_paper_protocol(graph_store, embedder):
    at = "1-3"
    who = character_at(graph_store, "lanterns", "Wren", at)
    model = paper_model(record("Wren Callow"), record("Dace Morrow"), record("Ottilie Brand"),
                        record("friends", level="general"))
    reply = await paper_agent(model, graph_store, embedder, method="rolerag-cutoff").respond(who, QUESTION)
    limit = Position.parse(at)
    for r in reply.details["relations"]:
        assert r["position"] is None or Position.parse(r["position"]) <= limit
    db = GraphRetriever(graph_store, model, embedder).db("lanterns")
    positions = {r.id: r.pos_key for r in db.chunk_rows()}
    assert reply.details["passages"] and max(positions.values()) > limit.key  # later chunks exist
    for chunk_id in reply.details["passages"]:
        key = positions[chunk_id]
        assert key is None or key <= limit.key
