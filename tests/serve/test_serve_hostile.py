"""The bad-input corpus, third round, for ``incanon serve``: requests that gave a 500 (a body nested
100,000 deep, a lone surrogate in a message, a position of thousands of digits) are 400s with a
short JSON error, and errors never echo a long or control-bearing input. The CLI cases of the
round are in ``tests/cli/test_bad_inputs.py``; ``test_serve_properties.py`` hunts for more.

Fourth round: the simple requests a page of another origin sends without asking are refused
here and in Chromium (``test_serve_browser_cross_site.py``, ``test_same_origin.py``); the slow
families (runaway lorebook keys, 60,000 newlines, 30,000 ``<chat_history>`` markers) are sent to
a real server in ``test_serve_event_loop.py`` and hunted for in ``test_serve_properties.py``;
signals in ``test_serve_signals.py``, two servers in ``test_home_lock.py``, damaged kept rows in
``test_serve_damaged_rows.py``."""

from __future__ import annotations

import pytest

#: A position of more digits than Python turns into an int (4,300).
LONG_POSITION = "1-" + "9" * 4301
#: The most an error reply may weigh: a short message and the OpenAI error fields.
SHORT_REPLY = 1_500

JSON = {"Content-Type": "application/json"}


def _v1_error(response) -> str:
    """The message of a ``/v1`` error reply (OpenAI's shape)."""
    return response.json()["error"]["message"]


def test_a_v1_body_nested_100000_deep_is_a_short_400(canon_client):
    body = b'{"model": "Wren Callow@1-3", "messages": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    response = canon_client.post("/v1/chat/completions", content=body, headers=JSON)
    assert response.status_code == 400, response.text[:300]
    assert "nested too deep" in _v1_error(response) and len(response.content) < SHORT_REPLY


def test_an_api_body_nested_100000_deep_is_a_short_400(canon_client):
    body = b'{"character": ' + b"[" * 100_000 + b"]" * 100_000 + b', "at": "1-3"}'
    response = canon_client.post("/api/chats", content=body, headers=JSON)
    assert response.status_code == 400 and len(response.content) < SHORT_REPLY


def test_a_lone_surrogate_in_a_message_is_a_400_naming_the_field(canon_client):
    body = b'{"model": "lanterns/Wren Callow@1-3/zero-shot", "messages": [{"role": "user", "content": "hi \\ud800"}]}'
    response = canon_client.post("/v1/chat/completions", content=body, headers=JSON)
    assert response.status_code == 400, response.text[:300]
    assert response.json()["error"]["param"] == "messages[0].content"
    assert "surrogate" in _v1_error(response)


@pytest.mark.parametrize("route", ["/v1/chat/completions", "/api/chats"])
def test_a_position_of_thousands_of_digits_is_too_long_not_a_500(canon_client, route):
    if route == "/api/chats":
        response = canon_client.post(route, json={"character": "Wren Callow", "at": LONG_POSITION})
        message = response.json()["error"]
    else:
        response = canon_client.post(route, json={"model": f"lanterns/Wren Callow@{LONG_POSITION}",
                                            "messages": [{"role": "user", "content": "hi"}]})
        message = _v1_error(response)
    assert response.status_code == 400, response.text[:300]
    assert "too long" in message and "9" * 100 not in response.text and len(response.content) < SHORT_REPLY


def test_a_100000_character_name_is_not_echoed_in_the_404(canon_client):
    response = canon_client.post("/api/chats", json={"character": "A" * 100_000, "at": "1-3"})
    assert response.status_code == 404
    assert "A" * 100 not in response.text and len(response.content) < SHORT_REPLY
    assert "unknown character" in response.json()["error"]


@pytest.mark.parametrize("model", ["lanterns/Wr\x00en@1-3", "Wren\x1b[31m\x00@1-3 "])
def test_a_v1_error_never_echoes_a_model_id_with_control_characters(canon_client, model):
    response = canon_client.post("/v1/chat/completions", json={"model": model, "messages": [{"role": "user", "content": "hi"}]})
    assert response.status_code in (400, 404), response.text[:300]
    text = response.json()["error"]["message"]
    assert "\x00" not in text and "\x1b" not in text and "\\x00" not in text and "\\u0000" not in text, text
    assert "(the requested character)" in text and len(response.content) < SHORT_REPLY


def test_a_long_v1_model_id_with_control_characters_comes_back_only_as_a_short_escaped_excerpt(canon_client):
    model = "lanterns/" + "Z\x00" * 5000 + "@1-3"
    response = canon_client.post("/v1/chat/completions", json={"model": model, "messages": [{"role": "user", "content": "hi"}]})
    assert response.status_code in (400, 404), response.text[:300]
    text = response.json()["error"]["message"]
    assert "\x00" not in text and "Z\\x00" * 50 not in text and len(response.content) < SHORT_REPLY, text


def test_an_unknown_v1_route_quotes_only_an_excerpt_of_its_path(canon_client):
    # Found by the property tests: the 404 quoted the first 100 characters of the path.
    response = canon_client.get("/v1/" + "9" * 5000)
    assert response.status_code == 404 and "9" * 100 not in response.text and len(response.content) < SHORT_REPLY


#: What a page of another origin sends without a preflight: (Origin, Sec-Fetch-Site, Content-Type).
CROSS_SITE = [("http://127.0.0.1:9999", "same-site", "text/plain;charset=UTF-8"),        # sendBeacon, no-cors
              ("http://localhost:9999", "cross-site", "application/x-www-form-urlencoded"),  # a form
              ("http://127.0.0.1:9999", None, "text/plain"),                               # an old browser
              (None, None, "text/plain"),                                                  # no Origin at all
              (None, "same-site", "application/json")]


@pytest.mark.parametrize(("origin", "site", "kind"), CROSS_SITE)
def test_a_simple_cross_site_request_runs_no_completion(canon_client, origin, site, kind):
    headers = {"Content-Type": kind, "Host": "127.0.0.1:8765"}
    if origin:
        headers["Origin"] = origin
    if site:
        headers["Sec-Fetch-Site"] = site
    before = len(canon_client.get("/api/completions").json())
    body = b'{"model": "lanterns/Wren Callow@1-3/zero-shot", "messages": [{"role": "user", "content": "spend"}]}'
    response = canon_client.post("/v1/chat/completions", content=body, headers=headers)
    assert response.status_code in (403, 415), response.text[:300]
    assert response.json()["error"]["message"] and len(response.content) < SHORT_REPLY
    assert len(canon_client.get("/api/completions").json()) == before
