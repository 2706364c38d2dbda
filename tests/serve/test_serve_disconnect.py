"""A /v1 chat whose client goes away is stopped: its model call is cancelled and its slot freed,
so the requests behind it do not wait on work nobody will read."""

from __future__ import annotations

import asyncio
import threading
import time

import httpx
import pytest

from incanon.models import Completion, GenerationParams, load_chat_model
from incanon.serve import ServeConfig
from incanon.serve.server import BackgroundServer


class HangingModel:
    """Answers at once, except a line with "hang" in it: that call waits until cancelled."""

    name = "hanging"

    def __init__(self) -> None:
        self.started = threading.Event()
        self.cancelled = threading.Event()

    async def generate(self, messages, params: GenerationParams | None = None) -> Completion:
        if "hang" not in messages[-1].content:
            return Completion(text="The lamps are lit.", model=self.name)
        self.started.set()
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            self.cancelled.set()
            raise
        return Completion(text="too late", model=self.name)


def _chat(line: str) -> dict:
    return {"model": "lanterns/Wren Callow@1-3/zero-shot", "messages": [{"role": "user", "content": line}]}


def _running(url: str) -> int:
    return httpx.get(url + "api/status", timeout=10).json()["chat_requests"]["running"]


@pytest.mark.parametrize("stream", [False, True])
def test_a_chat_whose_client_leaves_is_stopped_and_frees_its_slot(served, stream):
    model = HangingModel()
    # One running chat per client: without the stop, the second chat would wait for the first.
    config = ServeConfig(canon=served.canon, runs=served.runs_path, model="hanging", cache=False,
                         client_concurrency=1)
    with BackgroundServer(config, model=load_chat_model(model)) as url:
        body = {**_chat("Please hang on a moment."), "stream": stream}
        with pytest.raises(httpx.ReadTimeout):
            with httpx.Client(timeout=httpx.Timeout(60, read=1.0)) as client:
                with client.stream("POST", url + "v1/chat/completions", json=body) as response:
                    for _ in response.iter_lines():
                        pass  # a stream sends its role chunk at once; then nothing comes
        assert model.started.is_set()
        assert model.cancelled.wait(10), "the model call of a chat whose client left was not cancelled"
        deadline = time.monotonic() + 10
        while _running(url) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _running(url) == 0
        reply = httpx.post(url + "v1/chat/completions", json=_chat("Are the lamps lit?"), timeout=10)
        assert reply.status_code == 200
        assert reply.json()["choices"][0]["message"]["content"] == "The lamps are lit."
