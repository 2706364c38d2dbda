"""Fixtures of the audit tests."""

from __future__ import annotations

import pytest

from incanon.testing import FakeOpenAIServer


@pytest.fixture
def fake_embedder(monkeypatch):
    """An embedder spec served by a local fake endpoint: fast and offline."""
    monkeypatch.setenv("INCANON_FAKE_KEY", "not-a-secret")
    with FakeOpenAIServer() as server:
        yield f"openai:fake-embed@{server.base_url}?key_env=INCANON_FAKE_KEY"
