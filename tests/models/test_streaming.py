"""Streaming a call's text: the relay across retries, and the embedded backend (slow)."""

from __future__ import annotations

import pytest

from incanon.models import GenerationParams, ScriptedModel, build_chat_backend, locate_default_gguf, system, user
from incanon.models.streaming import piece_writer, stream_text, streaming_to


def test_a_retried_call_never_sends_its_start_twice():
    got: list[str] = []
    with streaming_to(got.append):
        first = piece_writer()
        first("The bell ")
        first("rang")
        again = piece_writer()  # a retry starts over and says the same thing
        for piece in ("The ", "bell ", "rang ", "twice."):
            again(piece)
    assert got == ["The bell ", "rang", " ", "twice."]
    assert "".join(got) == "The bell rang twice."


def test_without_a_listener_nothing_is_streamed():
    assert piece_writer() is None


async def test_a_backend_without_stream_gives_its_whole_text():
    model = ScriptedModel([], default="I keep the lamps.")
    assert [p async for p in stream_text(model, [user("Hi")])] == ["I keep the lamps."]


@pytest.mark.slow
async def test_the_embedded_model_streams_what_it_would_generate():
    if locate_default_gguf() is None:
        pytest.skip("default GGUF not installed")
    model = build_chat_backend("embedded?n_ctx=1024")
    messages = [system("You are a helpful assistant."), user("Name three colours.")]
    params = GenerationParams(max_tokens=16, seed=1)
    whole = await model.generate(messages, params)
    pieces = [p async for p in model.stream(messages, params)]
    assert len(pieces) > 1 and "".join(pieces) == whole.text
    heard: list[str] = []
    with streaming_to(heard.append):
        streamed = await model.generate(messages, params)
    assert "".join(heard) == streamed.text == whole.text
    assert streamed.prompt_tokens == whole.prompt_tokens and 0 < streamed.completion_tokens <= 16
