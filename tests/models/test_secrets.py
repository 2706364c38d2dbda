"""The API key never shows: not in errors, reprs, names, cache rows, logs or the server log."""

from __future__ import annotations

import logging
import sqlite3
import traceback

import pytest

from incanon.errors import ConfigError, ModelError
from incanon.models import RetryPolicy, build_chat_backend, load_chat_model, load_embedder, user
from incanon.testing import HTTPError, ServerError

KEY = "sk-test-DO-NOT-LEAK-9f8e7d6c5b4a"


def chain(error: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    while error is not None and error not in seen:
        seen.append(error)
        error = error.__cause__ or error.__context__
    return seen


def assert_clean(error: BaseException) -> None:
    text = "".join(traceback.format_exception(error))
    assert KEY not in text
    for link in chain(error):
        assert KEY not in str(link) and KEY not in repr(link)
        assert KEY not in repr(getattr(link, "errors", ""))


@pytest.fixture
def keyed(monkeypatch):
    monkeypatch.setenv("INCANON_TEST_KEY", KEY)


@pytest.mark.parametrize(
    "faults",
    [
        [HTTPError(401, f"Incorrect API key provided: {KEY}")],
        [ServerError(500), HTTPError(503, f"overloaded for key {KEY}")],
    ],
    ids=["401-echoing-key", "exhausted-5xx-echoing-key"],
)
async def test_failing_calls_never_show_the_key(server, sleeps, keyed, tmp_path, caplog, faults):
    caplog.set_level(logging.DEBUG)
    server.enqueue(*faults)
    model = load_chat_model(
        f"openai:fake@{server.base_url}?key_env=INCANON_TEST_KEY",
        cache=tmp_path / "c.sqlite",
        retry=RetryPolicy(max_attempts=2),
        sleep=sleeps,
    )
    with pytest.raises(ModelError) as info:
        await model.generate([user("hi")])
    assert_clean(info.value)
    await model.generate([user("now it works")])  # a cached row exists too
    assert KEY not in repr(model) and KEY not in model.name
    with sqlite3.connect(tmp_path / "c.sqlite") as db:
        rows = db.execute("SELECT * FROM responses").fetchall()
    assert rows and KEY not in repr(rows)
    assert KEY not in caplog.text
    assert KEY not in server.log_text()
    # ...yet the key did reach the server, as a fingerprint in its log.
    from incanon.testing import key_fingerprint

    assert server.chat_requests[0].headers["authorization"] == key_fingerprint(KEY)


def test_backend_repr_and_attributes_hide_the_key(server, keyed):
    backend = build_chat_backend(f"openai:fake@{server.base_url}?key_env=INCANON_TEST_KEY")
    assert KEY not in repr(backend) and KEY not in repr(vars(backend))
    embedder = load_embedder(f"openai:e@{server.base_url}?key_env=INCANON_TEST_KEY&dim=16")
    assert KEY not in repr(embedder) and KEY not in repr(vars(embedder.inner))


def test_missing_key_for_remote_server_is_a_config_error(monkeypatch):
    monkeypatch.delenv("NOT_SET_KEY", raising=False)
    with pytest.raises(ConfigError, match="set the environment variable NOT_SET_KEY"):
        build_chat_backend("openai:gpt-4o-mini@https://api.example.com/v1?key_env=NOT_SET_KEY")
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        build_chat_backend("openai:gpt-4o-mini")


async def test_local_servers_need_no_key(server):
    model = load_chat_model(f"openai:fake@{server.base_url}")
    assert (await model.generate([user("hi")])).text == "echo: hi"


def test_base_url_from_environment(monkeypatch, server):
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    backend = build_chat_backend("openai:fake")
    assert backend.base_url == server.base_url
