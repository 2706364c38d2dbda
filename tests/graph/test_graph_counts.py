"""The scope panel counts the knowledge graph as the character's scope sees it."""

from __future__ import annotations

import asyncio

from incanon.chat import ChatSession
from incanon.chat.render import scope_lines
from incanon.graph.counts import graph_counts, with_graph_counts
from incanon.graph.view import GraphView
from incanon.graph.db import GraphDB
from incanon.models import ScriptedModel, load_chat_model


def test_counts_follow_the_scope_and_add_up(built) -> None:
    canon, _, _ = built
    early = graph_counts(canon, canon.scope("lanterns", "Wren Callow", "1-1-1"))
    late = graph_counts(canon, canon.scope("lanterns", "Wren Callow", "3-4"))
    reader = graph_counts(canon, canon.scope("lanterns", None, "3-4"))
    assert early is not None and late is not None and reader is not None
    for counts in (early, late, reader):
        total = {k: counts["visible"][k] + counts["hidden"][k] for k in counts["visible"]}
        assert total == {"graph_entities": reader["visible"]["graph_entities"] + reader["hidden"]["graph_entities"],
                         "graph_relations": reader["visible"]["graph_relations"] + reader["hidden"]["graph_relations"]}
    assert 0 < early["visible"]["graph_entities"] < late["visible"]["graph_entities"]
    assert early["visible"]["graph_relations"] < late["visible"]["graph_relations"]
    # The same count as the graph view a retrieval method reads.
    db = GraphDB(canon, "lanterns")
    try:
        assert len(GraphView(db, canon.scope("lanterns", "Wren Callow", "1-1-1")).node_ids()) == \
            early["visible"]["graph_entities"]
    finally:
        db.close()


def test_a_work_without_a_graph_has_no_graph_counts(store) -> None:
    scope = store.scope("lanterns", "Wren Callow", "1-3")
    assert graph_counts(store, scope) is None
    assert "graph_entities" not in with_graph_counts(store, scope)["visible"]


def test_the_chat_scope_and_its_evidence_carry_them(built) -> None:
    canon, _, _ = built
    chat = ChatSession(canon, character="Wren", at="1-3", model=load_chat_model(ScriptedModel(default="Hm.")),
                       method="zero-shot")
    scope = chat.scope()
    assert scope is not None and scope["visible"]["graph_entities"] > 0
    turn = asyncio.run(chat.say("Who keeps the lamps?"))
    assert turn.evidence is not None and turn.evidence.scope == scope
    assert any("graph: " in line for line in scope_lines(scope))
