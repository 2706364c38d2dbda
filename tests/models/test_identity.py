"""The response cache keys on which model answers, not on its display name."""

from __future__ import annotations

import asyncio
import json
import os

import pytest

from incanon.errors import ConfigError
from incanon.models import GenerationParams, ResponseCache, load_chat_model, user
from incanon.models.identity import file_fingerprint, model_identity, normalize_base_url
from incanon.models.llama import LlamaChatModel
from incanon.models.openai_compat import OpenAIChatModel
from incanon.models.spec import parse_spec

PARAMS = GenerationParams(max_tokens=8)


def _ask(model, text="hello"):
    return asyncio.run(model.generate([user(text)], PARAMS)).text


def _rules(path, reply):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"rules": [], "default": reply}), encoding="utf-8")
    return path


def test_two_rules_files_with_one_stem_never_share_replies(tmp_path):
    cache = ResponseCache(tmp_path / "cache.sqlite")
    first = load_chat_model(f"scripted:{_rules(tmp_path / 'a' / 'agent.json', 'from a')}", cache=cache)
    second = load_chat_model(f"scripted:{_rules(tmp_path / 'b' / 'agent.json', 'from b')}", cache=cache)
    assert _ask(first) == "from a"
    assert _ask(second) == "from b"  # with a name-keyed cache this was "from a"
    assert first.usage.cached_calls == 0 and second.usage.cached_calls == 0
    # The same file again is a hit: the identity is stable across loads.
    again = load_chat_model(f"scripted:{tmp_path / 'a' / 'agent.json'}", cache=cache)
    assert _ask(again) == "from a" and again.usage.cached_calls == 1


def test_editing_a_rules_file_changes_its_identity(tmp_path):
    path = _rules(tmp_path / "agent.json", "one")
    cache = ResponseCache(tmp_path / "cache.sqlite")
    assert _ask(load_chat_model(f"scripted:{path}", cache=cache)) == "one"
    _rules(path, "two")
    assert _ask(load_chat_model(f"scripted:{path}", cache=cache)) == "two"


def _fake_gguf(path, payload: bytes):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"GGUF" + payload)
    return path


def test_two_gguf_files_with_one_stem_have_different_identities(tmp_path):
    a = LlamaChatModel(_fake_gguf(tmp_path / "x" / "model.gguf", b"\x01" * 1000))
    b = LlamaChatModel(_fake_gguf(tmp_path / "y" / "model.gguf", b"\x02" * 1000))
    assert a.name == b.name == "gguf:model"
    assert a.identity != b.identity
    assert a.identity.startswith("gguf:model#1004-")


def test_gguf_fingerprint_sees_a_change_deep_in_a_large_file(tmp_path):
    # A fine-tune differs in tensor data, not in the header: the sampled blocks must catch it.
    size = 40 << 20
    first = tmp_path / "one.gguf"
    with open(first, "wb") as stream:
        stream.truncate(size)
    second = tmp_path / "two.gguf"
    with open(second, "wb") as stream:
        stream.truncate(size)
        stream.seek(size // 2)
        stream.write(b"\xff" * (128 << 10))
    assert file_fingerprint(first) != file_fingerprint(second)


def test_gguf_fingerprint_sees_a_change_anywhere_in_the_file(tmp_path, monkeypatch):
    # A million bytes changed between any blocks a sampler would read: still another identity.
    monkeypatch.setenv("INCANON_HOME", str(tmp_path / "home"))
    size = 40 << 20
    first, second = tmp_path / "one.gguf", tmp_path / "two.gguf"
    for path in (first, second):
        with open(path, "wb") as stream:
            stream.truncate(size)
    with open(second, "r+b") as stream:
        stream.seek(size // 2 + 3 * (128 << 10) + 4321)
        stream.write(b"\x01" * 1_000_000)
    assert file_fingerprint(first) != file_fingerprint(second)


def test_a_file_hash_is_remembered_by_device_inode_size_and_mtime(tmp_path, monkeypatch):
    from incanon.models import filehash

    monkeypatch.setenv("INCANON_HOME", str(tmp_path / "home"))
    path = tmp_path / "m.gguf"
    path.write_bytes(b"\x02" * 4096)
    first = file_fingerprint(path)
    memo = json.loads((tmp_path / "home" / filehash.MEMO_NAME).read_text())
    stat = path.stat()
    assert list(memo) == [f"{stat.st_dev}:{stat.st_ino}:{stat.st_size}:{stat.st_mtime_ns}"]
    # Another process (no memory of its own) answers from the memo without reading the file.
    filehash._process_memo.clear()
    monkeypatch.setattr(filehash, "_digest", lambda file: pytest.fail("hashed again"))
    assert file_fingerprint(path) == first
    # Rewritten with the same size: a new mtime, so it is hashed again.
    monkeypatch.undo()
    monkeypatch.setenv("INCANON_HOME", str(tmp_path / "home"))
    path.write_bytes(b"\x03" * 4096)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))
    assert file_fingerprint(path) != first


def test_the_same_gguf_under_embedded_and_gguf_path_is_one_identity(tmp_path, monkeypatch):
    path = _fake_gguf(tmp_path / "m.gguf", b"\x03" * 10)
    monkeypatch.setenv("INCANON_GGUF", str(path))
    assert LlamaChatModel(None).identity == LlamaChatModel(path).identity


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://127.0.0.1:8000/v1/", "http://127.0.0.1:8000/v1"),
        ("HTTP://LocalHost:80/v1", "http://localhost/v1"),
        ("https://user:secret@api.example.com:443/v1?key=zzz#x", "https://api.example.com/v1"),
        ("http://[::1]:9000/v1", "http://[::1]:9000/v1"),
    ],
)
def test_base_urls_normalize(url, expected):
    assert normalize_base_url(url) == expected


def test_two_servers_serving_one_model_name_are_two_models(tmp_path):
    from incanon.testing import FakeOpenAIServer

    cache = ResponseCache(tmp_path / "cache.sqlite")
    with FakeOpenAIServer(default="first server") as server, FakeOpenAIServer(default="second server") as other:
        a = load_chat_model(f"openai:llama@{server.base_url}", cache=cache)
        b = load_chat_model(f"openai:llama@{other.base_url}", cache=cache)
        assert _ask(a) == "first server"
        assert _ask(b) == "second server"
        assert len(other.chat_requests) == 1


def test_the_api_key_is_not_part_of_the_identity(monkeypatch):
    monkeypatch.setenv("KEY_ONE", "sk-one-aaaaaaaaaaaaaaaa")
    monkeypatch.setenv("KEY_TWO", "sk-two-bbbbbbbbbbbbbbbb")
    one = OpenAIChatModel("m", base_url="https://api.example.com/v1", key_env="KEY_ONE")
    two = OpenAIChatModel("m", base_url="https://api.example.com/v1/", key_env="KEY_TWO")
    assert one.identity == two.identity == "openai:m@https://api.example.com/v1"
    assert "sk-" not in one.identity


def test_stats_show_entries_per_identity(tmp_path):
    cache = ResponseCache(tmp_path / "cache.sqlite")
    for folder in ("a", "b"):
        model = load_chat_model(f"scripted:{_rules(tmp_path / folder / 'agent.json', folder)}", cache=cache)
        _ask(model)
    identities = list(cache.stats().models)
    assert len(identities) == 2 and all(i.startswith("scripted:agent#") for i in identities)
    # Clearing by display name removes every identity of that name.
    assert cache.clear("scripted:agent") == 2


def test_wrappers_report_the_backend_identity(tmp_path):
    model = load_chat_model(f"scripted:{_rules(tmp_path / 'r.json', 'x')}", cache=ResponseCache(tmp_path / "c.sqlite"))
    assert model_identity(model).startswith("scripted:r#")


def test_a_key_in_a_spec_is_refused_without_echoing_it():
    with pytest.raises(ConfigError) as caught:
        parse_spec("openai:m@http://127.0.0.1:8000/v1?api_key=sk-abcdefghijklmnopqrstuv")
    message = str(caught.value)
    assert "key_env" in message and "sk-abcdefghijklmnopqrstuv" not in message


def test_credentials_in_a_base_url_never_show(monkeypatch):
    model = OpenAIChatModel("m", base_url="http://alice:hunter2secret@127.0.0.1:9/v1")
    assert "hunter2secret" not in repr(model)
    assert "hunter2secret" not in model.identity
