"""The bad-input corpus hunts for itself on ``incanon serve``: Hypothesis sends the app JSON bodies
(``/v1/chat/completions``, ``POST /api/chats``, chat lines) and headers built from valid requests
and hostile pieces (lone surrogates, control characters, long strings, deep nesting, numbers of
thousands of digits). Whatever comes, the app answers without a 500, and an error reply is short
and quotes nothing long or control-bearing from the request. Each test is bounded by its
example count (a few seconds)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from incanon.canon import CanonStore
from incanon.models import load_chat_model
from incanon.serve import ServeConfig, create_app
from incanon.testing.worlds import mini_world

from serve_helpers import character_model

#: Statuses an app may answer bad input with; never 500.
EXPECTED = {200, 201, 400, 404, 405, 413, 422, 429}
#: The most an error reply may weigh.
SHORT_REPLY = 2_000
#: A string of the request this long must never come back whole in an error.
LONG = 100

#: Bounded by examples, not by a clock (INCANON_HYPOTHESIS_EXAMPLES=2000 hunts harder); no example
#: database is written into the checkout, and a failure prints the blob that reproduces it.
SETTINGS = settings(max_examples=int(os.environ.get("INCANON_HYPOTHESIS_EXAMPLES", "60")), deadline=None, database=None, print_blob=True,
                    suppress_health_check=[HealthCheck.too_slow])

# -- the pieces ----------------------------------------------------------------------------

#: Text with every code point, lone surrogates included (they travel as \\ud800 escapes).
any_text = st.text(st.characters(exclude_categories=()), max_size=40)
hostile_text = st.one_of(
    any_text,
    st.sampled_from(["\x00", "\x1b[31m", "\ud800", "\u202e", "\x9b2J", "\r\n", "'", '"', "\\", "{{char}}"]),
    st.integers(1, 3).map(lambda n: "9" * (4300 * n + 1)),  # past Python's int-string limit
    st.integers(LONG, 5_000).map(lambda n: "x" * n),
)
positions = st.one_of(hostile_text, st.sampled_from(["1-3", "1-1-2", "2-3", "end of book 1", "2024-03-07", "0-0-0"]),
                      st.integers(-5, 10**30).map(str), st.builds(lambda a, b: f"{a}-{b}", st.integers(-1, 10**25),
                                                                 hostile_text))
names = st.one_of(hostile_text, st.sampled_from(["Wren Callow", "Wren", "Ottilie Brand", "lanterns/Wren Callow"]))
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | hostile_text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(hostile_text, inner, max_size=4),
    max_leaves=12,
)
valid_names = st.sampled_from(["Wren Callow", "Wren", "lanterns/Wren Callow", "Ottilie Brand"])
valid_positions = st.sampled_from(["1-3", "1-1-2", "2-3", "end of book 1"])
models = st.one_of(hostile_text, st.builds(lambda who, at, tail: f"{who}@{at}{tail}", names, positions,
                                           st.sampled_from(["", "/zero-shot", "/few-shot", "/nope", "/"])))
messages = st.lists(st.fixed_dictionaries({"role": st.one_of(st.sampled_from(["user", "assistant", "system"]),
                                                                 json_values),
                                           "content": st.one_of(hostile_text, json_values)}), max_size=3)
#: A request a front end could send, with one hostile piece: the position, or a message.
near_valid = st.one_of(
    st.builds(lambda who, at, text: {"model": f"{who}@{at}/zero-shot", "messages": [{"role": "user", "content": text}]},
              valid_names, positions, st.sampled_from(["hi"])),
    st.builds(lambda who, at, text: {"model": f"{who}@{at}/zero-shot", "messages": [{"role": "user", "content": text}]},
              valid_names, valid_positions, hostile_text),
)
v1_bodies = st.one_of(
    near_valid,
    json_values,
    st.fixed_dictionaries({"model": st.one_of(models, json_values), "messages": st.one_of(messages, json_values)},
                          optional={"stream": st.one_of(st.booleans(), json_values),
                                    "n": st.one_of(st.integers(-3, 10), json_values),
                                    "max_tokens": st.one_of(st.integers(-(10**30), 10**30), json_values),
                                    "temperature": st.one_of(st.floats(allow_nan=False), json_values),
                                    "stop": st.one_of(st.lists(hostile_text, max_size=6), json_values),
                                    "seed": st.one_of(st.integers(-(10**30), 10**30), json_values)}),
)
chat_bodies = st.one_of(
    json_values,
    st.fixed_dictionaries({"character": st.one_of(names, json_values), "at": st.one_of(positions, json_values)},
                          optional={"method": st.one_of(st.sampled_from(["zero-shot", "nope"]), hostile_text),
                                    "work": st.one_of(st.sampled_from(["lanterns"]), hostile_text, json_values)}),
)
lines = st.one_of(hostile_text, st.builds(lambda cmd, arg: f"/{cmd} {arg}",
                                          st.sampled_from(["at", "method", "why", "help", "save", "evidence", "x"]),
                                          st.one_of(positions, hostile_text)))


@pytest.fixture(scope="module")
def app_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """The app over the mini world with methods that need no embedding (fast examples)."""
    root = tmp_path_factory.mktemp("serve-properties")
    with CanonStore.open(root / "canon") as store:
        store.import_world(mini_world())
    config = ServeConfig(canon=root / "canon", runs=root / "runs.sqlite", model="scripted-character", cache=False,
                         methods=("zero-shot", "few-shot"))
    app = create_app(config, model=load_chat_model(character_model()))
    with TestClient(app, base_url="http://127.0.0.1") as client:
        yield client


# -- the checks ----------------------------------------------------------------------------

def _long_strings(value: Any) -> list[str]:
    """Every string of ``value`` (keys too) at least :data:`LONG` characters long."""
    found, stack = [], [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str) and len(item) >= LONG:
            found.append(item)
        elif isinstance(item, dict):
            stack += [*item.keys(), *item.values()]
        elif isinstance(item, list):
            stack += item
    return found


def _error_text(response: Any) -> str:
    """The message of an error reply, whichever shape it has."""
    try:
        data = response.json()
    except ValueError:
        return response.text
    error = data.get("error", data.get("detail", "")) if isinstance(data, dict) else data
    return error.get("message", "") if isinstance(error, dict) else str(error)


def assert_safe_reply(response: Any, sent: Any) -> None:
    """No 500; an error is short and echoes no long string of ``sent`` and no control character."""
    assert response.status_code in EXPECTED, f"{response.status_code}: {response.text[:300]}"
    if response.status_code < 400:
        return
    assert len(response.content) < SHORT_REPLY, f"a {len(response.content):,}-byte error reply"
    message = _error_text(response)
    assert not any(ch in message for ch in "\x00\x1b\x9b\x07\r\n"), f"raw control character in {message[:200]!r}"
    for text in _long_strings(sent):
        for piece in (text[:LONG], json.dumps(text[:LONG])[1:-1], repr(text[:LONG])[1:-1]):
            assert piece not in message and piece not in response.text, f"the error echoes {piece[:40]!r}…"


def _post_json(client: TestClient, url: str, body: Any) -> Any:
    # ensure_ascii: a lone surrogate travels as its \\ud800 escape, as a hostile client sends it.
    return client.post(url, content=json.dumps(body, ensure_ascii=True).encode(),
                       headers={"Content-Type": "application/json"})


# -- the properties ------------------------------------------------------------------------

@SETTINGS
@given(body=v1_bodies)
def test_any_v1_chat_body_is_answered_or_refused_without_a_500_or_an_echo(app_client, body):
    assert_safe_reply(_post_json(app_client, "/v1/chat/completions", body), body)


@SETTINGS
@given(body=chat_bodies)
def test_any_new_chat_body_is_answered_or_refused_without_a_500_or_an_echo(app_client, body):
    assert_safe_reply(_post_json(app_client, "/api/chats", body), body)


@SETTINGS
@given(line=lines)
def test_any_chat_line_is_answered_or_refused_without_a_500_or_an_echo(app_client, line):
    chat = app_client.post("/api/chats", json={"character": "Wren Callow", "at": "1-3", "method": "zero-shot"})
    assert chat.status_code == 201, chat.text[:300]
    body = {"line": line}
    assert_safe_reply(_post_json(app_client, f"/api/chats/{chat.json()['id']}/say", body), body)
    app_client.delete(f"/api/chats/{chat.json()['id']}")


header_values = st.one_of(st.text(st.characters(min_codepoint=32, max_codepoint=255), max_size=60),
                          st.integers(0, 3).map(lambda n: "9" * (4300 * n + 1)),
                          st.sampled_from(["127.0.0.1", "localhost:8765", "[::1]:1", "evil.example", "null",
                                           "http://127.0.0.1", "Bearer x", "-1", "1e3", "0x10", " 12 "]))


@SETTINGS
@given(headers=st.dictionaries(st.sampled_from(["host", "origin", "content-length", "content-type", "authorization",
                                               "sec-fetch-site", "x-forwarded-for", "accept"]),
                               header_values, max_size=5),
       route=st.sampled_from([("GET", "/api/works"), ("POST", "/v1/chat/completions"), ("POST", "/api/chats"),
                              ("GET", "/v1/models/x"), ("GET", "/api/status")]))
def test_any_headers_are_answered_or_refused_without_a_500(app_client, headers, route):
    method, url = route
    body = b'{"model": "Wren@1-3", "messages": [{"role": "user", "content": "hi"}]}' if method == "POST" else b""
    try:
        response = app_client.request(method, url, content=body, headers=headers)
    except ValueError:  # the client itself refuses the header (not the app's concern)
        return
    assert response.status_code in EXPECTED | {403, 415, 421}, f"{response.status_code}: {response.text[:300]}"
    assert len(response.content) < 1_000_000


@SETTINGS
@given(route=st.sampled_from(["/api/works/{}/timeline", "/api/chats/{}", "/api/completions/{}", "/api/runs/{}",
                              "/api/runs/x/sample?item={}", "/api/runs/x/samples?q={}", "/v1/models/{}", "/v1/{}"]),
       value=hostile_text)
def test_any_path_or_query_value_is_answered_or_refused_without_a_500_or_an_echo(app_client, route, value):
    from urllib.parse import quote

    # Percent-encoded as a client sends it (surrogates as the bytes surrogateescape gives them).
    encoded = quote(value.encode("utf-8", "surrogatepass"), safe="")
    assert_safe_reply(app_client.get(route.format(encoded)), [value])


# -- slow requests -------------------------------------------------------------------------

#: Pieces whose repetition made a regex on the request quadratic (newlines under ``^\s*``,
#: unclosed ``<chat_history>`` markers), or might: headings, output keys, speaker labels.
slow_pieces = st.one_of(
    st.sampled_from(["\n", " \n", "\t", "\r\n", "\u3000"]),  # blanks that cross line ends
    st.sampled_from(["<chat_history>", "<CHAT_HISTORY>", "### Task:", "### "]),  # openers with no end
    st.sampled_from(["</chat_history>", '{"title":', "{ ", "USER:", "ASSISTANT: ", "Wren: ", "Ottilie Brand:",
                     ":", "a", "'", "-", "\uff1a"]),
)
#: Content of tens of thousands of hostile pieces (each request a few hundred kilobytes at most).
slow_content = st.builds(lambda head, pieces, count: head + "".join(pieces) * count,
                         st.sampled_from(["", "### Task:\nSuggest a title.\n### Output:\n{\"title\": \"x\"}\n"]),
                         st.lists(slow_pieces, min_size=1, max_size=2), st.integers(10_000, 60_000))
#: One request may take this long in the test's process (a 60,000-newline request took 45 s).
SLOW_REQUEST_S = 2.0


@settings(SETTINGS, max_examples=int(os.environ.get("INCANON_HYPOTHESIS_EXAMPLES", "25")))
@given(content=slow_content, role=st.sampled_from(["user", "assistant"]),
       model=st.sampled_from(["Wren Callow@1-3/zero-shot", "lanterns/Ottilie Brand@1-3/few-shot"]))
def test_no_v1_body_of_repeated_hostile_pieces_is_slow(app_client, content, role, model):
    import time

    messages = [{"role": role, "content": content}]
    if role == "assistant":
        messages.append({"role": "user", "content": content[:2000] or "hi"})
    started = time.perf_counter()
    response = _post_json(app_client, "/v1/chat/completions", {"model": model, "messages": messages})
    took = time.perf_counter() - started
    assert response.status_code in EXPECTED, response.text[:300]
    assert took < SLOW_REQUEST_S, f"{took:.1f}s for {len(content):,} characters starting {content[:60]!r}"
