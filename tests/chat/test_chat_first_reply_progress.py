"""A first reply on a fresh home says what it waits for: ``incanon chat`` on the sample world
embeds the work and loads the model before it answers (160-180 s on a small machine), and
printed nothing in that time. Now a step still running after 2 s is announced, with progress,
before the reply comes.

In-process CLI (:func:`incanon.testing.cli.run_cli`), a scripted model and embedder that take
their time; what stderr held when each finished is kept, so the order is checked, not guessed.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np

import incanon.models
from incanon.models import ScriptedModel
from incanon.testing.cli import run_cli

SLOW_S = 3.0  # longer than the first notice (2 s), well under the promised 5 s


def _stderr_now() -> str:
    sys.stderr.flush()
    return sys.stderr.buffer.getvalue().decode("utf-8", "replace")


class SlowEmbedder:
    """Vectors from the text's length; the first passage batch takes ``SLOW_S``."""

    name, dim = "slow-test-embedder", 8

    def __init__(self) -> None:
        self.seen_during: list[str] = []

    def embed(self, texts, kind="passage"):
        if kind == "passage" and not self.seen_during:
            time.sleep(SLOW_S)
            self.seen_during.append(_stderr_now())
        return np.asarray([[1.0, len(t) % 7, 2.0, 3.0, 1.0, 0.5, len(t) % 3, 1.0] for t in texts], dtype=np.float32)


class SlowModel(ScriptedModel):
    """A scripted reply that takes ``SLOW_S`` (as a local model loading its weights)."""

    def __init__(self) -> None:
        super().__init__([], default="Evening. The lamps won't light themselves.", name="slow-scripted")
        self.seen_before_reply: list[str] = []

    async def generate(self, messages, params=None):
        time.sleep(SLOW_S)  # the thread is busy, as a local model's is
        self.seen_before_reply.append(_stderr_now())
        return await super().generate(messages, params)


def test_the_first_reply_on_a_fresh_home_shows_progress_before_it(tmp_path: Path, monkeypatch):
    embedder, model = SlowEmbedder(), SlowModel()
    monkeypatch.setattr(incanon.models, "load_embedder", lambda *a, **k: embedder)
    monkeypatch.setattr(incanon.models, "load_chat_model", lambda *a, **k: model)
    env = dict(os.environ, INCANON_HOME=str(tmp_path / "home"))
    env.pop("INCANON_CANON", None)
    res = run_cli(["chat", "--character", "Wren", "--at", "end of book 1", "--method", "rag-cutoff", "--no-cache"],
                  input="Did you hear the flood bell?\n", env=env, timeout=600)
    assert res.returncode == 0, res.stderr
    assert "Wren Callow: Evening." in res.stdout
    # While the work was being embedded, the notice was already out (within 2 s of the start).
    assert embedder.seen_during and "embedding" in embedder.seen_during[0] and "chunks of lanterns" in embedder.seen_during[0]
    # Before the reply was printed, the wait for the model was said too.
    assert model.seen_before_reply and "Wren Callow is answering" in model.seen_before_reply[0]
    assert "done (" in res.stderr
    # The whole-story text withheld at 1-3 is one line, not one per field.
    assert sum("withheld" in line for line in res.stderr.splitlines()) <= 1


def test_a_quick_step_says_nothing():
    import logging

    from incanon.slowsteps import slow_step

    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    logger = logging.getLogger("incanon.progress")
    logger.addHandler(handler)
    level = logger.level
    logger.setLevel(logging.DEBUG)
    try:
        with slow_step("a quick step"):
            pass
        with slow_step("a slow step", status=lambda: "1/2 chunks", after_s=0.05, every_s=0.05):
            time.sleep(0.2)
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
    messages = [r.getMessage() for r in records]
    assert not any("quick" in m for m in messages)
    assert messages[0].startswith("a slow step… (1/2 chunks") and messages[-1].startswith("a slow step: done")
