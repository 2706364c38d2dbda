"""Roles on the sample world: interaction graph, main character, partners, affection levels."""

from __future__ import annotations

import json

import pytest

from incanon.bench.sharp import (
    AffectionMap,
    AffectionResolver,
    interaction_graph,
    load_relations,
    main_character,
    select_cast,
)
from incanon.canon import Position
from incanon.errors import InputError, NotFoundError

from sharp_run_helpers import canon, sharp_canon_dir  # noqa: F401 - fixtures

WORK = "lanterns"


def test_interaction_counts_are_shared_speaking_scenes(canon):
    graph = interaction_graph(canon, WORK)
    both = [s.id for s in canon.scenes(WORK) if {"Wren Callow", "Dace Morrow"} <= set(s.speakers)]
    assert graph.interactions("Wren Callow", "Dace Morrow") == len(both) == 15
    assert graph.interactions("Dace Morrow", "Wren Callow") == 15


def test_main_character_has_the_highest_degree_centrality(canon):
    graph = interaction_graph(canon, WORK)
    centrality = graph.degree_centrality()
    assert main_character(graph) == "Wren Callow"
    assert centrality["Wren Callow"] == 1.0  # speaks with all 11 others
    # Jory also speaks with everyone: the tie goes to the larger interaction total.
    assert centrality["Jory Callow"] == 1.0 and graph.strength("Wren Callow") > graph.strength("Jory Callow")
    assert graph.ranking()[:2] == ["Wren Callow", "Jory Callow"]


def test_cast_partners_counts_and_ground_truth_affection(canon):
    cast = select_cast(canon, WORK)
    assert (cast.main_character, cast.at, cast.chosen_by) == ("Wren Callow", "3-4", "degree-centrality")
    got = [(p.name, p.interactions, p.affection, p.relation, p.affection_source) for p in cast.partners]
    assert got == [
        ("Dace Morrow", 15, "high", "partner", "canon"),
        ("Jory Callow", 10, "high", "sister", "canon"),
        ("Ottilie Brand", 10, "high", "apprentice", "canon"),  # ended when she died: the last one holds
        ("Sefa Quill", 9, "low", "estranged friend", "canon"),
        ("Ilse Varga", 6, "high", "friend", "canon"),
        ("Aldric Hame", 5, "low", "opponent", "canon"),
    ]
    assert [p.name for p in cast.left_out] == ["Garrick Rusk", "Pell", "Brother Tobiah", "Nell Hobb", "Amos Quill"]
    assert all(p.affection is None for p in cast.left_out)


def test_affection_follows_story_time(canon):
    early = select_cast(canon, WORK, character="Wren", at="2-2")
    levels = {p.name: (p.affection, p.relation) for p in early.partners}
    assert early.chosen_by == "user" and early.main_character == "Wren Callow"
    assert levels["Dace Morrow"] == ("low", "rival")       # partners only from 2-3-1
    assert levels["Sefa Quill"] == ("high", "friend")      # estranged only from 3-2-3
    assert "Ilse Varga" not in levels or levels["Ilse Varga"][0] == "high"
    # Interactions are counted up to the position too.
    assert {p.name: p.interactions for p in early.partners}["Dace Morrow"] < 15


def test_mapping_alone_agrees_with_the_ground_truth(canon):
    truth = {p.name: p.affection for p in select_cast(canon, WORK).partners}
    mapped = select_cast(canon, WORK, resolver=AffectionResolver(relations=canon.relations(WORK), use_canon_affection=False))
    assert {p.name: p.affection for p in mapped.partners} == truth
    assert {p.affection_source for p in mapped.partners} == {"mapping"}


def test_partner_limit_unknown_affection_and_turns(canon):
    cast = select_cast(canon, WORK, partners=2)
    assert [p.name for p in cast.partners] == ["Dace Morrow", "Jory Callow"]
    everyone = select_cast(canon, WORK, require_affection=False, min_interactions=3)
    assert "Garrick Rusk" in [p.name for p in everyone.partners]
    assert all(p.interactions >= 3 for p in everyone.partners)
    turns = select_cast(canon, WORK, character="Wren Callow", unit="turns")
    assert turns.unit == "turns" and turns.partners[0].name == "Dace Morrow" and turns.partners[0].interactions == 26
    # Counting exchanged lines instead of shared scenes changes the graph: Jory talks with more people line by line.
    assert select_cast(canon, WORK, unit="turns").main_character == "Jory Callow"
    with pytest.raises(NotFoundError):
        select_cast(canon, WORK, character="Amos Quill", min_interactions=50)


def test_reverse_relation_when_only_the_partner_has_one(canon):
    resolver = AffectionResolver(relations=canon.relations(WORK))
    finding = resolver.resolve("Ottilie Brand", "Brother Tobiah", Position.parse("3-1"))
    assert (finding.affection, finding.relation, finding.direction) == ("high", "old friend", "reverse")
    assert resolver.resolve("Pell", "Nell Hobb").affection is None


def test_affection_map_rules():
    m = AffectionMap()
    assert [m.of(t) for t in ("sister", "old friend", "estranged friend", "ex-wife", "loyal captain", "commander")] == \
        ["high", "high", "low", "low", None, None]
    assert m.of("Mentor") == "high" and m.of("rival") == "low" and m.of("oppressor") == "low"
    custom = AffectionMap({"loyal captain": "high", "friend": "low"})
    assert custom.of("loyal captain") == "high" and custom.of("old friend") == "low" and custom.of("sister") is None


def test_relations_file_json_overrides_canon(canon, tmp_path):
    path = tmp_path / "relations.json"
    path.write_text(json.dumps({
        "mapping": {"commander": "high"},
        "relations": [{"source": "Wren", "target": "Dace Morrow", "affection": "low"},
                      {"source": "Wren Callow", "target": "Garrick Rusk", "type": "enemy"}],
    }))
    loaded = load_relations(path)
    resolver = AffectionResolver(relations=canon.relations(WORK), mapping=loaded.affection_map(), overrides=loaded.entries)
    cast = select_cast(canon, WORK, resolver=resolver)
    levels = {p.name: (p.affection, p.affection_source) for p in cast.partners}
    assert levels["Dace Morrow"] == ("low", "file")      # alias "Wren" resolved to the canonical name
    assert levels["Garrick Rusk"] == ("low", "file")     # type mapped
    assert loaded.affection_map().of("commander") == "high"


def test_relations_file_csv_and_errors(tmp_path):
    csv_path = tmp_path / "rel.csv"
    csv_path.write_text("source,target,type,affection\nA,B,friend,\nA,C,,low\n")
    entries = load_relations(csv_path).entries
    assert [(e.target, e.type, e.affection) for e in entries] == [("B", "friend", None), ("C", "", "low")]
    bad = tmp_path / "bad.csv"
    bad.write_text("source,target,type,affection\nA,B,friend,lukewarm\n")
    with pytest.raises(InputError, match=r"bad.csv \(line 2\).*high or low"):
        load_relations(bad)
    empty = tmp_path / "empty.json"
    empty.write_text(json.dumps([{"source": "A", "target": "B"}]))
    with pytest.raises(InputError, match="type or an affection"):
        load_relations(empty)
    with pytest.raises(NotFoundError):
        load_relations(tmp_path / "missing.json")
