"""Concurrent callers' texts embedded together: batches form from what waits while the backend is
busy, kinds never mix, a withdrawn request is never embedded, errors reach every caller."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import CancelledError

import numpy as np
import pytest

from incanon.models.embed_batcher import EmbedBatcher, shared_batcher
from incanon.models.embedding_cache import CachedEmbedder


class GatedBackend:
    """Embeds a text as [len(text), index-in-call]; the first call waits for ``gate`` so that
    the next requests queue behind it."""

    name = "gated"
    dim = 2

    def __init__(self) -> None:
        self.calls: list[tuple[list[str], str]] = []
        self.gate = threading.Event()
        self.started = threading.Event()

    def embed(self, texts, kind="passage"):
        self.calls.append((list(texts), kind))
        if len(self.calls) == 1:
            self.started.set()
            assert self.gate.wait(10)
        return np.array([[len(t), i + 1] for i, t in enumerate(texts)], dtype=np.float32)


def _wait_pending(batcher: EmbedBatcher, n: int) -> None:
    for _ in range(1000):
        with batcher._cond:
            if len(batcher._pending) >= n:
                return
        threading.Event().wait(0.005)
    raise AssertionError("requests did not queue")


def test_requests_waiting_on_a_busy_backend_go_in_one_call():
    backend = GatedBackend()
    batcher = EmbedBatcher(backend.embed, max_texts=64)
    first = batcher.submit(["a"], "query")
    assert backend.started.wait(10)
    waiting = [batcher.submit([f"q{i}" * (i + 1)], "query") for i in range(10)]
    backend.gate.set()
    assert first.result(10).tolist() == [[1, 1]]
    rows = [f.result(10) for f in waiting]
    assert [texts for texts, _ in backend.calls] == [["a"], [f"q{i}" * (i + 1) for i in range(10)]]
    # Each caller gets its own row of the shared call, in order.
    assert [r.tolist() for r in rows] == [[[2 * (i + 1), i + 1]] for i in range(10)]
    assert batcher.batches == 2 and batcher.texts == 11


def test_kinds_do_not_mix_and_the_size_limit_holds():
    backend = GatedBackend()
    batcher = EmbedBatcher(backend.embed, max_texts=3)
    batcher.submit(["start"], "query")
    assert backend.started.wait(10)
    futures = [batcher.submit(["p1"], "passage"), batcher.submit(["q1", "q2"], "query"),
               batcher.submit(["p2"], "passage"), batcher.submit(["q3", "q4"], "query")]
    _wait_pending(batcher, 4)
    backend.gate.set()
    for f in futures:
        f.result(10)
    assert backend.calls[1:] == [(["p1", "p2"], "passage"), (["q1", "q2"], "query"), (["q3", "q4"], "query")]


def test_a_request_withdrawn_before_its_batch_starts_is_never_embedded():
    backend = GatedBackend()
    batcher = EmbedBatcher(backend.embed)
    batcher.submit(["busy"], "query")
    assert backend.started.wait(10)
    gone = batcher.submit(["SECRET-gone"], "query")
    kept = batcher.submit(["kept"], "query")
    assert gone.cancel()
    backend.gate.set()
    assert kept.result(10).shape == (1, 2)
    with pytest.raises(CancelledError):
        gone.result(0)
    assert all("SECRET-gone" not in texts for texts, _ in backend.calls)
    assert batcher.skipped == 1


def test_a_backend_error_reaches_every_caller_of_the_batch_and_the_next_batch_works():
    state = {"fail": True}
    gate, started = threading.Event(), threading.Event()

    def embed(texts, kind):
        if texts == ["first"]:
            started.set()
            gate.wait(10)
            return np.zeros((1, 2), dtype=np.float32)
        if state["fail"]:
            state["fail"] = False
            raise RuntimeError("backend down")
        return np.ones((len(texts), 2), dtype=np.float32)

    batcher = EmbedBatcher(embed)
    batcher.submit(["first"], "query")
    assert started.wait(10)
    doomed = [batcher.submit([f"t{i}"], "query") for i in range(3)]
    _wait_pending(batcher, 3)
    gate.set()
    for f in doomed:
        with pytest.raises(RuntimeError, match="backend down"):
            f.result(10)
    assert batcher.submit(["after"], "query").result(10).tolist() == [[1.0, 1.0]]


def test_a_wrong_number_of_rows_is_an_error_not_a_shifted_answer():
    batcher = EmbedBatcher(lambda texts, kind: np.zeros((len(texts) + 1, 2)))
    with pytest.raises(RuntimeError, match="2 vectors for 1 texts"):
        batcher.submit(["x"], "query").result(10)


def test_the_worker_ends_when_idle_and_a_new_request_starts_one():
    batcher = EmbedBatcher(lambda texts, kind: np.zeros((len(texts), 2)), idle_s=0.05)
    batcher.submit(["x"], "query").result(10)
    thread = batcher._thread
    assert thread is not None
    thread.join(5)
    assert not thread.is_alive() and batcher._thread is None
    assert batcher.submit(["y"], "query").result(10).shape == (1, 2)


def test_backends_sharing_an_engine_share_a_batcher():
    a = shared_batcher("test-engine:x", lambda t, k: np.zeros((len(t), 2)))
    assert shared_batcher("test-engine:x", lambda t, k: np.ones((len(t), 2))) is a
    assert shared_batcher("test-engine:y", lambda t, k: np.ones((len(t), 2))) is not a


async def test_concurrent_aembed_calls_are_batched_cached_and_equal_to_embed(tmp_path):
    from incanon.models.cache import ResponseCache

    backend = GatedBackend()
    embedder = CachedEmbedder(backend, ResponseCache(tmp_path / "cache.sqlite"))
    first = asyncio.create_task(embedder.aembed(["opening question"], kind="query"))
    assert await asyncio.to_thread(backend.started.wait, 10)
    questions = [f"question number {i}" + "?" * i for i in range(12)]
    rest = [asyncio.create_task(embedder.aembed([q], kind="query")) for q in questions]
    await asyncio.to_thread(_wait_pending, embedder._batcher(), len(questions))
    backend.gate.set()
    await first
    rows = await asyncio.gather(*rest)
    assert len(backend.calls) == 2  # one call for the twelve that waited
    open_backend = GatedBackend()
    open_backend.gate.set()
    expected = CachedEmbedder(open_backend, None)
    expected_rows = expected.embed(questions, kind="query")
    for q, row, want in zip(questions, rows, expected_rows):
        np.testing.assert_allclose(row[0], want)
    # Written to the cache by the batcher thread: asking again calls nobody.
    again = await embedder.aembed(questions[:3], kind="query")
    assert len(backend.calls) == 2 and again.shape == (3, 2)
    assert embedder.embedded_texts == 13


async def test_cancelling_aembed_before_its_turn_withdraws_the_text():
    backend = GatedBackend()
    embedder = CachedEmbedder(backend, None)
    first = asyncio.create_task(embedder.aembed(["busy"], kind="query"))
    assert await asyncio.to_thread(backend.started.wait, 10)
    gone = asyncio.create_task(embedder.aembed(["SECRET-withdrawn"], kind="query"))
    await asyncio.to_thread(_wait_pending, embedder._batcher(), 1)
    gone.cancel()
    with pytest.raises(asyncio.CancelledError):
        await gone
    backend.gate.set()
    await first
    kept = await embedder.aembed(["kept"], kind="query")
    assert kept.shape == (1, 2)
    assert all("SECRET-withdrawn" not in texts for texts, _ in backend.calls)
