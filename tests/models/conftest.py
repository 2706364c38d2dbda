"""Fixtures for the model layer: a fake OpenAI server, a recording sleep, a temp cache."""

from __future__ import annotations

import pytest

from incanon.models import ResponseCache
from incanon.testing import FakeOpenAIServer


class SleepRecorder:
    """An injectable sleep that records the delays instead of waiting."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


@pytest.fixture
def sleeps() -> SleepRecorder:
    return SleepRecorder()


@pytest.fixture
def server():
    with FakeOpenAIServer() as fake:
        yield fake


@pytest.fixture
def cache(tmp_path) -> ResponseCache:
    store = ResponseCache(tmp_path / "cache.sqlite")
    yield store
    store.close()


@pytest.fixture(autouse=True)
def _no_openai_env(monkeypatch):
    # Tests never see a developer's real key or base URL.
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
