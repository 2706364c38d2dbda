"""Test helpers other packages and users can rely on: a fake OpenAI server, a scripted model."""

from incanon.models.scripted import ScriptedCall, ScriptedModel
from incanon.testing.fake_openai import (
    Behavior,
    Disconnect,
    FakeOpenAIServer,
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
    "ScriptedCall",
    "ScriptedModel",
    "ServerError",
    "SlowBody",
    "fake_vector",
    "key_fingerprint",
]
