"""The fake OpenAI server on its own, through plain HTTP and through the openai client."""

from __future__ import annotations

import base64
import json
import threading
import urllib.error
import urllib.request

import numpy as np
import openai
import pytest

from incanon.testing import (
    FakeOpenAIServer,
    Hang,
    HTTPError,
    Malformed,
    RateLimited,
    Reply,
    ServerError,
    SlowBody,
    fake_vector,
    key_fingerprint,
)


def post(server, path, body, key=None):
    request = urllib.request.Request(
        server.base_url.removesuffix("/v1") + path,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", **({"Authorization": f"Bearer {key}"} if key else {})},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read().decode()


def chat(text):
    return {"model": "m", "messages": [{"role": "user", "content": text}]}


def test_rules_default_and_echo():
    with FakeOpenAIServer(rules=[(r"capital", "Paris")]) as server:
        assert json.loads(post(server, "/v1/chat/completions", chat("the capital?"))[2])["choices"][0]["message"]["content"] == "Paris"
        assert json.loads(post(server, "/v1/chat/completions", chat("hello"))[2])["choices"][0]["message"]["content"] == "echo: hello"
    with FakeOpenAIServer(default=lambda request: request.last_message[::-1]) as server:
        status, _, body = post(server, "/v1/chat/completions", chat("abc"))
        assert status == 200 and json.loads(body)["choices"][0]["message"]["content"] == "cba"


def test_queue_then_handler_then_normal():
    calls = []

    def handler(request):
        calls.append(request.last_message)
        return HTTPError(418, "teapot") if "tea" in request.last_message else None

    with FakeOpenAIServer(handler=handler) as server:
        server.enqueue(RateLimited("3"), Reply(text="queued"))
        status, headers, _ = post(server, "/v1/chat/completions", chat("x"))
        assert status == 429 and headers["Retry-After"] == "3"
        assert json.loads(post(server, "/v1/chat/completions", chat("x"))[2])["choices"][0]["message"]["content"] == "queued"
        assert post(server, "/v1/chat/completions", chat("tea"))[0] == 418
        assert post(server, "/v1/chat/completions", chat("coffee"))[0] == 200
        assert calls == ["tea", "coffee"]  # queued behaviours skip the handler
        assert [r.status for r in server.chat_requests] == [429, 200, 418, 200]
        assert [r.behavior for r in server.chat_requests][:2] == ["HTTPError", "Reply"]


def test_queue_per_path():
    with FakeOpenAIServer() as server:
        server.enqueue(ServerError(503), path="/v1/embeddings")
        assert post(server, "/v1/chat/completions", chat("x"))[0] == 200
        assert post(server, "/v1/embeddings", {"model": "e", "input": "x"})[0] == 503


def test_embeddings_float_and_base64():
    with FakeOpenAIServer(embedding_dim=8) as server:
        floats = json.loads(post(server, "/v1/embeddings", {"model": "e", "input": ["a", "b"]})[2])
        assert [d["index"] for d in floats["data"]] == [0, 1]
        assert np.allclose(floats["data"][1]["embedding"], fake_vector("b", 8))
        encoded = json.loads(post(server, "/v1/embeddings", {"model": "e", "input": "a", "encoding_format": "base64"})[2])
        vector = np.frombuffer(base64.b64decode(encoded["data"][0]["embedding"]), dtype=np.float32)
        assert np.allclose(vector, fake_vector("a", 8))


def test_models_and_unknown_routes():
    with FakeOpenAIServer(models=["a", "b"]) as server:
        with urllib.request.urlopen(server.base_url + "/models", timeout=10) as response:
            assert [m["id"] for m in json.load(response)["data"]] == ["a", "b"]
        assert post(server, "/v1/completions", {"prompt": "x"})[0] == 404


def test_api_key_checked_and_never_logged():
    with FakeOpenAIServer(api_key="sk-right") as server:
        assert post(server, "/v1/chat/completions", chat("x"), key="sk-wrong")[0] == 401
        assert post(server, "/v1/chat/completions", chat("x"), key="sk-right")[0] == 200
        assert [r.headers["authorization"] for r in server.requests] == [
            key_fingerprint("sk-wrong"), key_fingerprint("sk-right")
        ]
        assert "sk-right" not in server.log_text() and "sk-wrong" not in server.log_text()


def test_non_json_body_is_a_400():
    with FakeOpenAIServer() as server:
        request = urllib.request.Request(server.base_url + "/chat/completions", data=b"{nope", method="POST")
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(request, timeout=10)
        assert info.value.code == 400


def test_malformed_body_is_sent_verbatim():
    with FakeOpenAIServer() as server:
        server.enqueue(Malformed("not json"))
        assert post(server, "/v1/chat/completions", chat("x"))[2] == "not json"


def test_slow_body_arrives_whole():
    with FakeOpenAIServer() as server:
        server.enqueue(SlowBody(pieces=3, interval=0.02, text="piece by piece"))
        body = json.loads(post(server, "/v1/chat/completions", chat("x"))[2])
        assert body["choices"][0]["message"]["content"] == "piece by piece"


async def test_with_the_openai_client_and_in_flight_count():
    with FakeOpenAIServer(reply_delay=0.05) as server:
        client = openai.AsyncOpenAI(api_key="x", base_url=server.base_url, max_retries=0)
        import asyncio

        replies = await asyncio.gather(*(
            client.chat.completions.create(model="m", messages=[{"role": "user", "content": str(i)}])
            for i in range(4)
        ))
        assert [r.choices[0].message.content for r in replies] == [f"echo: {i}" for i in range(4)]
        # The server counts a request done after its last byte is written, which can be a moment
        # after the client has read it.
        for _ in range(200):
            if server.in_flight == 0:
                break
            await asyncio.sleep(0.01)
        assert server.max_in_flight >= 2 and server.in_flight == 0
        server.reset()
        assert server.requests == [] and server.max_in_flight == 0


def test_stop_ends_hanging_requests():
    server = FakeOpenAIServer().start()
    server.enqueue(Hang(seconds=60))
    result = {}

    def client():
        try:
            post(server, "/v1/chat/completions", chat("x"))
        except Exception as exc:  # noqa: BLE001 - the connection closes without a reply
            result["error"] = exc

    thread = threading.Thread(target=client)
    thread.start()
    while not server.requests:
        threading.Event().wait(0.01)
    server.stop()
    thread.join(timeout=30)
    assert not thread.is_alive()


def test_a_failing_handler_answers_500_and_the_server_keeps_serving():
    def broken(request):
        raise RuntimeError("bug in the test's handler")

    with FakeOpenAIServer(handler=broken) as server:
        status, _, body = post(server, "/v1/chat/completions", chat("x"))
        assert status == 500 and "bug in the test's handler" in body
        server.handler = None
        assert post(server, "/v1/chat/completions", chat("x"))[0] == 200
