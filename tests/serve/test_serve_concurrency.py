"""The server never waits on itself: a book's first embedding is a background job that only the
chats needing it wait for, requests to one character run side by side, and a client's burst
queues before it is refused.

Every check is by order of events (a gate held shut while the other requests are made), never
by wall-clock thresholds: speed targets live in ``benchmarks/serve.py``.
"""

from __future__ import annotations

import asyncio
import hashlib
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest

from incanon.canon import CanonStore
from incanon.models import load_chat_model
from incanon.models.types import Completion, GenerationParams, Message
from incanon.serve import ServeConfig
from incanon.serve.limits import ClientLimits, QueueFull
from incanon.serve.server import BackgroundServer
from incanon.testing.worlds import mini_world

from serve_helpers import character_model

#: Long enough never to fire on a loaded machine; a failure shows as this timeout, not a hang.
PATIENCE = 120.0


def chat(model: str, text: str = "Who rang the flood bell?", **extra: Any) -> dict[str, Any]:
    return {"model": model, "messages": [{"role": "user", "content": text}], **extra}


class GatedEmbedder:
    """Embeds passages only once ``gate`` opens (queries at once); says when it started."""

    name = "gated-embedder"
    dim = 8

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.started = threading.Event()

    def embed(self, texts: Sequence[str], kind: str = "passage") -> np.ndarray:
        if kind == "passage":
            self.started.set()
            assert self.gate.wait(PATIENCE), "the test never opened the gate"
        rows = [np.frombuffer(hashlib.sha256(t.encode()).digest()[:32], dtype=np.uint8)[:8] for t in texts]
        return np.asarray(rows, dtype=np.float32) + 1.0


@pytest.fixture
def fresh_canon(tmp_path: Path) -> Path:
    """The mini world with nothing embedded yet (a fresh home)."""
    canon = tmp_path / "canon"
    with CanonStore.open(canon) as store:
        store.import_world(mini_world())
    return canon


@pytest.fixture
def gated(monkeypatch: pytest.MonkeyPatch) -> Iterator[GatedEmbedder]:
    embedder = GatedEmbedder()
    import incanon.models

    monkeypatch.setattr(incanon.models, "load_embedder", lambda *a, **k: embedder)
    yield embedder
    embedder.gate.set()  # never leave a job thread waiting


def test_pages_and_other_chats_answer_while_a_book_is_embedded(fresh_canon: Path, served: Any,
                                                               gated: GatedEmbedder) -> None:
    config = ServeConfig(canon=fresh_canon, runs=served.runs_path, model="scripted-character", cache=False,
                         embedder="gated")
    with BackgroundServer(config, model=load_chat_model(character_model())) as url, \
            httpx.Client(base_url=url, timeout=PATIENCE) as client, ThreadPoolExecutor(2) as pool:
        waiting = pool.submit(client.post, "v1/chat/completions", json=chat("lanterns/Wren Callow@1-3/in-canon"))
        assert gated.started.wait(PATIENCE), "the first chat with a retrieval method did not start the embedding"

        # The gate is shut: whatever answers now did not wait for the embedding.
        assert client.get("v1/models").status_code == 200
        assert client.get("api/works").status_code == 200
        other = client.post("v1/chat/completions", json=chat("lanterns/Ottilie Brand@1-3/zero-shot"))
        assert other.status_code == 200 and other.json()["choices"][0]["message"]["content"]
        status = client.get("api/status").json()
        assert [(j["work"], j["state"]) for j in status["embedding"]] == [("lanterns", "embedding")]
        web = client.post("api/chats", json={"character": "Wren Callow", "at": "1-3", "method": "rag-cutoff"})
        assert web.status_code == 201 and web.json()["preparing"]["state"] == "embedding"
        assert not waiting.done() and not gated.gate.is_set()

        gated.gate.set()
        reply = waiting.result(PATIENCE)
        assert reply.status_code == 200, reply.text
        assert reply.json()["incanon"]["method"] == "in-canon"
        assert [j["state"] for j in client.get("api/status").json()["embedding"]] == ["ready"]
        assert client.get(f"api/chats/{web.json()['id']}").json()["preparing"] is None


def test_a_stream_starts_before_the_embedding_ends(fresh_canon: Path, served: Any, gated: GatedEmbedder) -> None:
    config = ServeConfig(canon=fresh_canon, runs=served.runs_path, model="scripted-character", cache=False,
                         embedder="gated")
    with BackgroundServer(config, model=load_chat_model(character_model())) as url, \
            httpx.Client(base_url=url, timeout=PATIENCE) as client:
        body = chat("lanterns/Wren Callow@1-3/in-canon", stream=True)
        with client.stream("POST", "v1/chat/completions", json=body) as response:
            lines = response.iter_lines()
            first = next(line for line in lines if line.startswith("data: "))
            assert '"role": "assistant"' in first and not gated.gate.is_set()
            gated.gate.set()
            rest = [line for line in lines if line.startswith("data: ")]
        assert rest[-1] == "data: [DONE]" and any('"finish_reason": "stop"' in line for line in rest)


class Rendezvous:
    """A model whose calls wait until ``parties`` calls are in flight at once: requests that
    were answered one after the other would never get there. Records each call's params."""

    name = "rendezvous"

    def __init__(self, parties: int) -> None:
        self.parties = parties
        self.arrived = 0
        self.all_here = threading.Event()
        self.params: list[GenerationParams | None] = []
        self._lock = threading.Lock()

    async def generate(self, messages: Sequence[Message], params: GenerationParams | None = None) -> Completion:
        with self._lock:
            self.arrived += 1
            self.params.append(params)
            if self.arrived >= self.parties:
                self.all_here.set()
        while not self.all_here.is_set():  # polls, so it works on whichever loop calls it
            await asyncio.sleep(0.01)
        return Completion(text=f"answered at temperature {params.temperature if params else None}",
                          model=self.name, prompt_tokens=1, completion_tokens=1, latency_s=0.0)


def test_requests_to_one_character_run_side_by_side_each_with_its_settings(serve_config: ServeConfig) -> None:
    model = Rendezvous(parties=3)
    with BackgroundServer(serve_config, model=model) as url, httpx.Client(base_url=url, timeout=PATIENCE) as client, \
            ThreadPoolExecutor(3) as pool:
        futures: list[Future[httpx.Response]] = [
            pool.submit(client.post, "v1/chat/completions",
                        json=chat("lanterns/Wren Callow@1-3/zero-shot", f"Question {i}?", temperature=t))
            for i, t in enumerate((0.1, 0.7, 1.3))]
        replies = [f.result(PATIENCE) for f in futures]
    assert [r.status_code for r in replies] == [200, 200, 200]
    texts = sorted(r.json()["choices"][0]["message"]["content"] for r in replies)
    assert texts == [f"answered at temperature {t}" for t in (0.1, 0.7, 1.3)]


class HeldModel:
    """Answers only once ``release`` is set; counts calls begun."""

    name = "held"

    def __init__(self) -> None:
        self.release = threading.Event()
        self.begun = 0

    async def generate(self, messages: Sequence[Message], params: GenerationParams | None = None) -> Completion:
        self.begun += 1
        while not self.release.is_set():
            await asyncio.sleep(0.01)
        return Completion(text="At last.", model=self.name, prompt_tokens=1, completion_tokens=1, latency_s=0.0)


def _until(check: Any, what: str) -> None:
    deadline = time.monotonic() + PATIENCE
    while not check():
        assert time.monotonic() < deadline, f"never happened: {what}"
        time.sleep(0.02)


def test_a_burst_queues_past_the_running_slots_and_only_then_is_refused(serve_config: ServeConfig) -> None:
    config = replace(serve_config, client_concurrency=1, client_queue=1)
    model = HeldModel()
    with BackgroundServer(config, model=model) as url, httpx.Client(base_url=url, timeout=PATIENCE) as client, \
            ThreadPoolExecutor(2) as pool:
        body = chat("lanterns/Wren Callow@1-3/zero-shot")
        running = pool.submit(client.post, "v1/chat/completions", json=body)
        _until(lambda: model.begun == 1, "the first request reached the model")
        queued = pool.submit(client.post, "v1/chat/completions", json=body)
        _until(lambda: client.get("api/status").json()["chat_requests"] == {"running": 1, "waiting": 1},
               "the second request waits its turn")
        refused = client.post("v1/chat/completions", json=body)
        assert refused.status_code == 429
        assert refused.headers["Retry-After"] == "1"
        assert refused.json()["error"]["type"] == "rate_limit_error"
        assert not running.done() and not queued.done()
        model.release.set()
        assert running.result(PATIENCE).status_code == 200
        assert queued.result(PATIENCE).status_code == 200
        assert model.begun == 2
        assert client.get("api/status").json()["chat_requests"] == {"running": 0, "waiting": 0}


def test_client_limits_hand_slots_over_in_order() -> None:
    async def scenario() -> list[str]:
        limits = ClientLimits(running=1, queue=2)
        order: list[str] = []
        await limits.acquire("a")
        second = asyncio.ensure_future(limits.acquire("a"))
        third = asyncio.ensure_future(limits.acquire("a"))
        await asyncio.sleep(0)
        with pytest.raises(QueueFull):
            await limits.acquire("a")
        await limits.acquire("b")  # another client is not held up by this one's queue
        assert limits.state("a") == (1, 2)
        third.cancel()  # a waiter that leaves gives its place up
        await asyncio.sleep(0)
        assert limits.state("a") == (1, 1)
        limits.release("a")
        await second
        order.append("second")
        limits.release("a")
        limits.release("b")
        assert limits.totals() == {"running": 0, "waiting": 0}
        return order

    assert asyncio.run(scenario()) == ["second"]
