"""Response cache: what the key holds and what it leaves out, per-epoch sampling, processes."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import sys
import textwrap

import pytest

from incanon.models import (
    GenerationParams,
    ResponseCache,
    ScriptedModel,
    cache_key,
    load_chat_model,
    metered,
    system,
    user,
)
from incanon.models import cache as cache_module
from incanon.testing import FakeOpenAIServer

BASE_MESSAGES = [system("You are Frodo."), user("Where is the ring?")]
BASE_PARAMS = GenerationParams(temperature=0.0, max_tokens=64)


def key(model="m", messages=BASE_MESSAGES, **params):
    return cache_key(model, messages, BASE_PARAMS.model_copy(update=params))


@pytest.mark.parametrize(
    "change",
    [
        {"model": "other"},
        {"messages": [system("You are Sam."), user("Where is the ring?")]},
        {"messages": [user("You are Frodo."), user("Where is the ring?")]},
        {"messages": BASE_MESSAGES[:1]},
        {"temperature": 0.3},
        {"max_tokens": 65},
        {"top_p": 0.9},
        {"stop": ("\n",)},
        {"seed": 7},
        {"frequency_penalty": 0.5},
        {"presence_penalty": 0.5},
        {"response_format": {"type": "json_object"}},
        {"response_format": {"type": "json_schema", "json_schema": {"name": "x", "schema": {}}}},
    ],
)
def test_everything_that_changes_output_changes_the_key(change):
    assert key(**change) != key()


def test_every_params_field_is_in_the_key():
    # A field added to GenerationParams later must reach the key without touching cache.py.
    assert set(GenerationParams.model_fields) == {
        "temperature", "max_tokens", "top_p", "stop", "seed", "response_format", "epoch",
        "frequency_penalty", "presence_penalty",
    }


def test_cache_version_is_in_the_key(monkeypatch):
    before = key()
    monkeypatch.setattr(cache_module, "CACHE_VERSION", cache_module.CACHE_VERSION + 1)
    assert key() != before


def test_epoch_counts_only_when_sampling():
    assert key(epoch=0) == key(epoch=3)
    assert key(temperature=0.7, epoch=0) != key(temperature=0.7, epoch=1)


def test_key_is_canonical():
    assert key() == key()
    assert len(key()) == 64


async def test_key_leaves_out_key_timeout_and_limits_but_not_the_server(tmp_path, monkeypatch):
    monkeypatch.setenv("KEY_A", "sk-a-111")
    monkeypatch.setenv("KEY_B", "sk-b-222")
    store = ResponseCache(tmp_path / "c.sqlite")
    with FakeOpenAIServer() as a, FakeOpenAIServer() as b:
        first = load_chat_model(f"openai:same@{a.base_url}?key_env=KEY_A&timeout=5", cache=store)
        # The same server spelled differently, another key, timeout and limit: the same model.
        second = load_chat_model(
            f"openai:same@{a.base_url}/?key_env=KEY_B&timeout=9", cache=store, max_concurrency=3
        )
        one = await first.generate(BASE_MESSAGES, BASE_PARAMS)
        two = await second.generate(BASE_MESSAGES, BASE_PARAMS)
        assert len(a.chat_requests) == 1
        assert two.cached and two.text == one.text
        # Another server under the same model name is another model.
        elsewhere = load_chat_model(f"openai:same@{b.base_url}?key_env=KEY_B", cache=store)
        await elsewhere.generate(BASE_MESSAGES, BASE_PARAMS)
        assert len(b.chat_requests) == 1
        other = load_chat_model(f"openai:different@{b.base_url}?key_env=KEY_B", cache=store)
        await other.generate(BASE_MESSAGES, BASE_PARAMS)
        assert len(b.chat_requests) == 2  # a different model name is a different entry


async def test_sampling_is_cached_per_epoch(cache):
    backend = ScriptedModel(default=lambda m: f"reply {len(backend.calls)}")
    model = load_chat_model(backend, cache=cache)
    hot = [GenerationParams(temperature=0.8, epoch=e) for e in range(3)]
    first = [(await model.generate(BASE_MESSAGES, p)).text for p in hot]
    again = [(await model.generate(BASE_MESSAGES, p)).text for p in hot]
    assert first == again == ["reply 1", "reply 2", "reply 3"]
    assert len(backend.calls) == 3
    for epoch in range(3):
        await model.generate(BASE_MESSAGES, GenerationParams(temperature=0, epoch=epoch))
    assert len(backend.calls) == 4  # greedy: one call serves every epoch
    assert model.usage.calls == 4 and model.usage.cached_calls == 5


async def test_identical_calls_in_flight_are_sent_once(cache):
    backend = ScriptedModel(default="same")
    model = load_chat_model(backend, cache=cache)
    results = await asyncio.gather(*(model.generate(BASE_MESSAGES) for _ in range(5)))
    assert [r.text for r in results] == ["same"] * 5
    assert len(backend.calls) == 1
    assert sum(r.cached for r in results) == 4


async def test_failures_are_not_cached(cache):
    from incanon.errors import ModelError

    backend = ScriptedModel(queue=[ModelError("down"), "up"])
    model = load_chat_model(backend, cache=cache, retry=None)
    with pytest.raises(ModelError):
        await model.generate(BASE_MESSAGES)
    assert (await model.generate(BASE_MESSAGES)).text == "up"
    assert cache.stats().responses == 1


async def test_values_are_json_rows(cache):
    model = load_chat_model(ScriptedModel(default="stored", name="s"), cache=cache)
    await model.generate(BASE_MESSAGES)
    with sqlite3.connect(cache.path) as db:
        (model_name, value), = db.execute("SELECT model, value FROM responses").fetchall()
        mode = db.execute("PRAGMA journal_mode").fetchone()[0]
    assert model_name.startswith("s#") and json.loads(value)["text"] == "stored"
    assert mode == "wal"


async def test_stats_and_clear(cache):
    for name in ("a", "b"):
        model = load_chat_model(ScriptedModel(default="x" * 10, name=name), cache=cache)
        await model.generate([user("1")])
        await model.generate([user("2")])
        await model.generate([user("1")])
    stats = cache.stats()
    assert (stats.entries, stats.responses, stats.embeddings) == (4, 4, 0)
    by_name = {identity.split("#")[0]: entry for identity, entry in stats.models.items()}
    assert set(by_name) == {"a", "b"} and by_name["a"].entries == 2
    assert stats.bytes > 0 and stats.file_bytes > 0
    assert (stats.hits, stats.misses) == (2, 4)
    assert cache.clear(model="a") == 2
    assert [m.split("#")[0] for m in cache.stats().models] == ["b"]
    assert cache.clear() == 2
    assert cache.stats().entries == 0


def test_open_cache_arguments(tmp_path, monkeypatch):
    from incanon.models import open_cache

    monkeypatch.setenv("INCANON_HOME", str(tmp_path / "home"))
    assert open_cache(None) is None and open_cache(False) is None
    assert open_cache(True).path == tmp_path / "home" / "cache.sqlite"
    assert open_cache(tmp_path / "x.sqlite").path == tmp_path / "x.sqlite"
    store = ResponseCache(tmp_path / "y.sqlite")
    assert open_cache(store) is store


_WRITER = textwrap.dedent(
    """
    import sys
    from incanon.models import Completion, ResponseCache
    cache = ResponseCache(sys.argv[1])
    tag = sys.argv[2]
    for i in range(300):
        cache.put_completion(f"{tag}-{i}", tag, Completion(text=f"{tag} {i}", model=tag))
        cache.put_completion(f"shared-{i}", "shared", Completion(text="same", model="shared"))
        assert cache.get_completion(f"{tag}-{i}").text == f"{tag} {i}"
    """
)


def test_two_processes_write_concurrently(tmp_path):
    path = tmp_path / "shared.sqlite"
    ResponseCache(path).stats()  # create the file and schema first, as any user would
    procs = [
        subprocess.Popen([sys.executable, "-c", _WRITER, str(path), tag], stderr=subprocess.PIPE, text=True)
        for tag in ("p1", "p2")
    ]
    for proc in procs:
        _, stderr = proc.communicate(timeout=120)
        assert proc.returncode == 0, stderr
    stats = ResponseCache(path).stats()
    assert stats.responses == 900
    assert {name: m.entries for name, m in stats.models.items()} == {"p1": 300, "p2": 300, "shared": 300}


def test_two_processes_creating_the_file_at_once(tmp_path):
    path = tmp_path / "fresh.sqlite"
    procs = [
        subprocess.Popen([sys.executable, "-c", _WRITER, str(path), tag], stderr=subprocess.PIPE, text=True)
        for tag in ("q1", "q2")
    ]
    for proc in procs:
        _, stderr = proc.communicate(timeout=120)
        assert proc.returncode == 0, stderr
    assert ResponseCache(path).stats().responses == 900


async def test_meters_see_cache_hits(cache):
    model = load_chat_model(ScriptedModel(default="a b c"), cache=cache)
    with metered() as meter:
        await model.generate([user("one two")])
        await model.generate([user("one two")])
    assert meter.total.calls == 1 and meter.total.cached_calls == 1
    assert meter.total.completion_tokens == 3
