"""A cancelled in-canon reply (a /v1 client that went away) stops while its question is being
embedded: the event loop stays free, no model is called, and queued embeddings never run."""

from __future__ import annotations

import asyncio
import threading
import time

import numpy as np
import pytest

from incanon.agents import Turn, character_at, create_agent
from incanon.canon import CanonStore
from incanon.models import ScriptedModel, load_chat_model, load_embedder
from incanon.retrieval import ChunkRetriever
from incanon.sample import sample_world


@pytest.fixture
def sample(tmp_path):  # noqa: ANN001, ANN201
    store = CanonStore.open(tmp_path / "canon")
    store.import_world(sample_world())
    yield store
    store.close()


class SlowEmbedder:
    """Passages at once; each query waits for ``release`` (a busy embedder)."""

    name = "slow-test"
    dim = 4

    def __init__(self) -> None:
        self.release = threading.Event()
        self.queries = 0

    def embed(self, texts, kind="passage"):  # noqa: ANN001, ANN201
        if kind == "query":
            self.queries += 1
            self.release.wait(10)
        return np.ones((len(texts), self.dim), dtype=np.float32)


async def test_a_cancelled_reply_stops_while_its_question_is_embedded(sample) -> None:
    slow = SlowEmbedder()
    retriever = ChunkRetriever(sample, load_embedder(slow))
    retriever.index("lanterns")
    model = ScriptedModel(default="I keep the lamps.")
    agent = create_agent("in-canon", load_chat_model(model), store=sample, retriever=retriever)
    who = character_at(sample, "lanterns", "Wren", "1-3", warn=False)
    task = asyncio.create_task(agent.respond(who, [Turn(speaker="user", text="Who keeps the lamps?")]))
    while slow.queries == 0:  # the question is being embedded in a worker thread
        await asyncio.sleep(0.01)
    started = time.monotonic()
    ticks = 0
    while time.monotonic() - started < 0.2:  # the loop is free meanwhile
        await asyncio.sleep(0.01)
        ticks += 1
    task.cancel()
    try:
        await asyncio.wait_for(task, 1)
    except asyncio.CancelledError:
        pass
    assert task.cancelled() and ticks >= 5 and model.calls == []
    slow.release.set()
