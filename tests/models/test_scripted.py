"""The scripted backend: rules on the last message, queue first, default, call log."""

from __future__ import annotations

import json

import pytest

from incanon.errors import ConfigError, InputError, ModelError
from incanon.models import GenerationParams, ScriptedModel, assistant, system, user


async def test_rules_match_last_message_only():
    model = ScriptedModel([(r"capital of (\w+)", "Paris"), (r"hello", "hi")])
    messages = [system("hello"), user("what is the capital of France?")]
    assert (await model.generate(messages)).text == "Paris"
    assert (await model.generate([user("hello there")])).text == "hi"


async def test_callable_rules_and_default():
    model = ScriptedModel(
        [(r"echo", lambda messages: messages[-1].content.upper())],
        default=lambda messages: f"{len(messages)} messages",
    )
    assert (await model.generate([user("echo me")])).text == "ECHO ME"
    assert (await model.generate([user("a"), assistant("b"), user("c")])).text == "3 messages"


async def test_queue_is_fifo_and_comes_first():
    model = ScriptedModel([(r".", "rule")], queue=["one", "two"])
    texts = [(await model.generate([user("x")])).text for _ in range(3)]
    assert texts == ["one", "two", "rule"]


async def test_queue_can_raise():
    model = ScriptedModel(queue=[ModelError("boom"), "ok"])
    with pytest.raises(ModelError, match="boom"):
        await model.generate([user("x")])
    assert (await model.generate([user("x")])).text == "ok"


async def test_no_match_without_default_is_clear():
    model = ScriptedModel([(r"foo", "bar")], name="judge")
    with pytest.raises(ModelError, match=r"judge: no rule matches the last message 'baz'.*'foo'"):
        await model.generate([user("baz")])


async def test_calls_and_token_counts_are_recorded():
    model = ScriptedModel(default="two words")
    params = GenerationParams(temperature=0.5, max_tokens=7)
    completion = await model.generate([system("be brief"), user("say something now")], params)
    assert completion.prompt_tokens == 5 and completion.completion_tokens == 2
    assert completion.model == "scripted"
    assert len(model.calls) == 1
    assert model.calls[0].params == params
    assert [m.content for m in model.calls[0].messages] == ["be brief", "say something now"]


def test_rules_file_forms(tmp_path):
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps([{"match": "a", "response": "b"}]))
    assert ScriptedModel.from_file(bare).default is None
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"match": "(", "response": "b"}]))
    with pytest.raises(ConfigError, match="bad regex"):
        ScriptedModel.from_file(bad)
    with pytest.raises(ConfigError, match="does not exist"):
        ScriptedModel.from_file(tmp_path / "missing.json")
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    with pytest.raises(InputError, match="broken.json .line 1, column 2.: invalid JSON"):
        ScriptedModel.from_file(broken)
