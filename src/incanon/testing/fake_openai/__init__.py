"""A real OpenAI-compatible HTTP server on 127.0.0.1 whose every reply can be scripted.

For tests and benchmarks that must not touch the network::

    from incanon.testing import FakeOpenAIServer, RateLimited, ServerError, Hang

    with FakeOpenAIServer(rules=[(r"capital", "Paris")], reply_delay=0.05) as server:
        server.enqueue(RateLimited(retry_after="2"), ServerError(500))  # next two requests
        model = load_chat_model(f"openai:fake@{server.base_url}")
        ...
        assert len(server.chat_requests) == 3
        assert server.max_in_flight <= 4

Endpoints: ``POST /v1/chat/completions``, ``POST /v1/embeddings``, ``GET /v1/models``.
Each request takes the next queued behaviour (``enqueue``), else asks ``handler`` (a function
of the ``LoggedRequest`` returning a behaviour or None), else replies normally: the first
``rules`` regex found in the last message, or an echo. Behaviours: ``Reply``, ``RateLimited``,
``ServerError``, ``HTTPError``, ``Hang``, ``Malformed``, ``SlowBody``, ``Disconnect``.

The request log keeps method, path, JSON body and headers, with the ``Authorization`` header
replaced by a short fingerprint (``key_fingerprint(key)``), so the log itself never holds a key.
"""

from incanon.testing.fake_openai.behaviors import (
    Behavior,
    Disconnect,
    Hang,
    HTTPError,
    LoggedRequest,
    Malformed,
    RateLimited,
    Reply,
    ServerError,
    SlowBody,
    fake_vector,
    key_fingerprint,
)
from incanon.testing.fake_openai.server import FakeOpenAIServer

__all__ = [
    "Behavior",
    "Disconnect",
    "FakeOpenAIServer",
    "HTTPError",
    "Hang",
    "LoggedRequest",
    "Malformed",
    "RateLimited",
    "Reply",
    "ServerError",
    "SlowBody",
    "fake_vector",
    "key_fingerprint",
]
