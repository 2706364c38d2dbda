"""Reading extraction replies: JSON, fenced JSON, GraphRAG tuples, types, and refusals."""

from __future__ import annotations

import json

import pytest

from incanon.graph import ENTITY_TYPES, ExtractionParseError, parse_extraction, parse_same


def test_json_reply_with_synonym_types_and_strength():
    reply = json.dumps({"entities": [{"name": "Ada", "type": "Person", "description": "a lamplighter"},
                                     {"name": "Tower", "type": "place", "description": ""},
                                     {"name": "Levy", "type": "tax", "description": "a tax"}],
                        "relations": [{"source": "Ada", "target": "Tower", "description": "keeps it", "strength": "12"},
                                      {"source": "Ada", "target": "ada", "description": "self", "strength": 3}]})
    got = parse_extraction("Sure! ```json\n" + reply + "\n``` done", ENTITY_TYPES)
    assert [(e.name, e.type) for e in got.entities] == [("Ada", "character"), ("Tower", "location")]
    assert [(r.source, r.target, r.strength) for r in got.relations] == [("Ada", "Tower", 10.0)]
    assert any("'tax'" in n for n in got.notes) and any("itself" in n for n in got.notes)


def test_graphrag_tuple_lines():
    text = ('("entity"<|>ADA<|>character<|>A lamplighter)##\n("entity"<|>BEACON TOWER<|>location<|>A tower)##\n'
            '("relationship"<|>ADA<|>BEACON TOWER<|>Ada keeps the light<|>8)')
    got = parse_extraction(text, ENTITY_TYPES)
    assert [e.name for e in got.entities] == ["ADA", "BEACON TOWER"]
    assert got.relations[0].strength == 8.0


def test_empty_answer_is_empty_not_an_error():
    got = parse_extraction('{"entities": [], "relations": []}', ENTITY_TYPES)
    assert got.empty


@pytest.mark.parametrize("reply, message", [
    ("I cannot help with that.", "no JSON object"),
    ("", "the reply is empty"),
    ('{"entities": [{"type": "character"}], "relations": []}', r"entities\[0\] needs a 'name'"),
    ('{"entities": {}, "relations": []}', "must be lists"),
    ('{"entities": [], "relations": [{"source": "A"}]}', r"relations\[0\] needs 'source' and 'target'"),
])
def test_unreadable_replies_say_why(reply, message):
    with pytest.raises(ExtractionParseError, match=message):
        parse_extraction(reply, ENTITY_TYPES)


def test_same_entity_verdicts():
    assert parse_same('{"reason": "nickname", "same": true}') == (True, "nickname")
    assert parse_same('{"reason": "x", "same": "no"}')[0] is False
    assert parse_same('Reasoning... "same": false')[0] is False
    assert parse_same("Yes, they are one person.")[0] is True
    assert parse_same("maybe")[0] is None


def test_a_reply_cut_at_the_token_limit_keeps_its_complete_items():
    cut = ('{"entities": [{"name": "Ada", "type": "character", "description": "says \\"hi {there}\\" loudly"}, '
           '{"name": "Tower", "type": "location", "description": "tall"}], "relations": [{"source": "Ada", '
           '"target": "Tower", "description": "climbs", "strength": 4}, {"source": "Ada", "targ')
    got = parse_extraction(cut, ENTITY_TYPES)
    assert [e.name for e in got.entities] == ["Ada", "Tower"] and got.entities[0].description == 'says "hi {there}" loudly'
    assert [(r.source, r.target) for r in got.relations] == [("Ada", "Tower")]
    assert "cut off" in got.notes[-1]
    with pytest.raises(ExtractionParseError):
        parse_extraction('{"entities": [{"name": "Ad', ENTITY_TYPES)
