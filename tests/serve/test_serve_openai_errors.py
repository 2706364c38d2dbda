"""``/v1`` errors hide the requested model once, where the message quotes it, and garble nothing
else: for any model string, the message equals its template with one placeholder per value.

Before, the value was replaced by substring, again and again: model ``"e"`` turned every word
into ``mod(th(the requested model) r...``, ``"Wren"`` rewrote the grammar's own example, and a
bad method was called "(the requested model)".
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from incanon.errors import IncanonError
from incanon.serve.characters import parse_model
from incanon.serve.config import ServeConfig
from incanon.serve.hidden_model import without_model

METHODS = ServeConfig(canon="unused", runs="unused").methods
SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _error(model: str) -> str:
    with pytest.raises(IncanonError) as refused:
        parse_model(model, METHODS)
    return str(refused.value)


def _hidden(model: str) -> str:
    return without_model(_error(model), model, METHODS)


GRAMMAR = _error("Q").replace("'Q'", "(the requested model)", 1)
BAD_METHOD = _error("A@1/B").replace("'A@1/B'", "(the requested model)", 1).replace("'B'", "(the requested method)", 1)
PART = st.text(min_size=1, max_size=60).filter(lambda s: "@" not in s and "/" not in s and s.strip())


@SETTINGS
@given(st.text(max_size=300).filter(lambda s: "@" not in s))
def test_a_model_out_of_the_grammar_is_hidden_once_and_nothing_else_changes(model):
    assume(model.strip() and model.strip() != "Q")
    assert _hidden(model) == GRAMMAR


@SETTINGS
@given(PART, PART, PART)
def test_a_bad_method_is_named_as_a_method_and_the_model_hidden_once(who, at, method):
    assume(method.strip() not in METHODS)
    assert _hidden(f"{who}@{at}/{method}") == BAD_METHOD


@pytest.mark.parametrize("model", ["e", "Wren", "l", "'", "\"", "model", "the requested model", "(", "1-3",
                                   "in-canon", "Wren Callow", "'lanterns/Wren Callow", "e.g.", "model 'Q'"])
def test_short_and_quote_bearing_models_garble_nothing(model):
    assert _hidden(model) == GRAMMAR


NAME = st.text(st.characters(blacklist_characters="@/", blacklist_categories=("Cs",)), min_size=1, max_size=40)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(NAME)
def test_an_unknown_character_is_hidden_once_over_http(canon_client, name):
    """Through the route (the store's own message): one placeholder, and the rest as for a
    plain unknown name."""
    def message(character: str) -> tuple[int, str]:
        response = canon_client.post("/v1/chat/completions", json={
            "model": f"{character}@1-3", "messages": [{"role": "user", "content": "hi"}]})
        return response.status_code, response.json().get("error", {}).get("message", "")

    template = message("Qxzzy")[1].replace("'Qxzzy'", "(the requested character)", 1)
    status, text = message(name)
    assume(status == 404 and text.startswith("unknown character"))
    assert text == template
