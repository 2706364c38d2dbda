"""Parsing V2 and V1 cards: what is accepted, and one-line errors naming the field."""

from __future__ import annotations

import pytest

from incanon.cards import parse_card
from incanon.errors import InputError


def _v2(**data):
    return {"spec": "chara_card_v2", "spec_version": "2.0", "data": {"name": "Maren", **data}}


def test_v2_defaults_and_unknown_keys_kept() -> None:
    card, version = parse_card({**_v2(custom={"x": 1}), "top": True}, "c.json")
    assert version == 2
    assert card.data.description == "" and card.data.extensions == {} and card.data.alternate_greetings == []
    assert card.data.model_extra == {"custom": {"x": 1}}  # never destroyed (spec rule)
    assert '"custom":{"x":1}' in card.to_json()


def test_v1_card_is_lifted_into_data() -> None:
    card, version = parse_card({"name": "Maren", "description": "Keeps the light.", "first_mes": "Hello."}, "c.json")
    assert version == 1
    assert (card.data.name, card.data.description, card.data.first_mes) == ("Maren", "Keeps the light.", "Hello.")
    assert card.spec == "chara_card_v2" and card.data.character_book is None


def test_null_text_fields_read_as_empty() -> None:
    card, _ = parse_card(_v2(personality=None, character_book={"entries": [{"keys": ["a"], "content": None,
                                                                             "enabled": True, "insertion_order": 1}]}),
                         "c.json")
    assert card.data.personality == "" and card.data.character_book.entries[0].content == ""


@pytest.mark.parametrize("doc, where, words", [
    ([1, 2], None, "expected a JSON object"),
    ({"description": "x"}, None, "no 'spec'"),
    ({"spec": "something_else", "data": {"name": "a"}}, "(spec)", "unknown card spec"),
    ({"spec": "chara_card_v3", "spec_version": "2.0", "data": {"name": "a"}}, "(spec_version)", "expected '3.x'"),
    ({"spec": "chara_card_v3", "spec_version": "3.0"}, "(data)", "V3 card needs a 'data' object"),
    ({"spec": "chara_card_v2", "spec_version": "1.0", "data": {"name": "a"}}, "(spec_version)", "spec_version"),
    ({"spec": "chara_card_v2", "spec_version": "2.0"}, "(data)", "'data' object"),
    (_v2(name=7), "(data.name)", "valid string"),
    (_v2(name="  "), "(data.name)", "name is empty"),
    (_v2(tags="x"), "(data.tags)", "valid list"),
    (_v2(character_book={"entries": [{"keys": ["a"], "content": "b"}, {"keys": "a", "content": "b"}]}),
     "(data.character_book.entries[1].keys)", "valid list"),
])
def test_bad_cards_name_the_field(doc, where, words) -> None:
    with pytest.raises(InputError) as info:
        parse_card(doc, "bad.json")
    message = str(info.value)
    assert message.startswith("bad.json") and words in message and "\n" not in message
    if where:
        assert where in message
