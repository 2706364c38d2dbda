"""Small hand-built dialogues and scripted models for the DialSim tests."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from incanon.bench.dialsim import ingest
from incanon.bench.dialsim.ingest import world_from_sessions
from incanon.canon import CanonStore
from incanon.ingest import parse_transcript
from incanon.models import Completion, GenerationParams, Message

TINY_SCRIPT = """\
## 2020-01-01
Ana: Morning, Ben. Still at the bakery?
Ben: Still baking. Bread at four, every day.
Ana: I'll take a loaf.
Ben: Baker's price for you.

## 2020-01-05
Ben: Cy, you're the new smith on the corner?
Cy: I am. Horseshoes and hinges.
Ben: Good to meet you.

## 2020-02-01
Cy: Ana, meet my girl... no, Ben is my boyfriend now.
Ana: Ben! You never said.
Ben: It's new. Since last week.
Ana: I'm happy for you both.
Cy: He bakes me bread.

## 2020-03-01
Ben: Ana, Cy and I split up. I'm seeing Dee now.
Ana: Dee from the mill?
Ben: The very one.
Ana: Well. Good luck.

## 2020-03-02
Ana: Talking to myself again. Nobody here.
"""

#: (head, relation, tail, session) — session-2 is the one Ana misses.
TINY_TKG = [
    ["Ben", "job", "baker", "session-1"],
    ["Cy", "job", "smith", "session-2"],
    ["Cy", "boyfriend", "Ben", "session-3"],
    ["Ben", "girlfriend", "Cy", "session-3"],
    ["Ben", "girlfriend", "Dee", "session-4"],
    # said behind Ana's back; they also give the distractor pools enough values
    ["Eve", "job", "miller", "session-2"],
    ["Fay", "job", "weaver", "session-2"],
    ["Gus", "job", "tanner", "session-2"],
    ["Eve", "boyfriend", "Gus", "session-2"],
    ["Fay", "boyfriend", "Hal", "session-2"],
]


def tiny_store(path: Path) -> CanonStore:
    """A canon store holding the tiny dialogue as work ``tiny`` (Ana plays; she misses session 2)."""
    store = CanonStore.open(path)
    world = world_from_sessions(parse_transcript(TINY_SCRIPT), work_id="tiny", title="Tiny")
    store.import_world(world)
    return store


def sample_store(path: Path) -> CanonStore:
    store = CanonStore.open(path)
    ingest(store, sample=True)
    return store


class SlowModel:
    """A chat model that advances a fake clock by ``seconds`` per call (no real waiting)."""

    def __init__(self, clock: "FakeClock", seconds: float, reply: str = "(A)", fail: BaseException | None = None) -> None:
        self.clock, self.seconds, self.reply, self.fail = clock, seconds, reply, fail
        self.calls = 0

    @property
    def name(self) -> str:
        return "slow"

    async def generate(self, messages: Sequence[Message], params: GenerationParams | None = None) -> Completion:
        self.calls += 1
        self.clock.now += self.seconds
        if self.fail is not None:
            raise self.fail
        return Completion(text=self.reply, model="slow")


class FakeClock:
    """A clock tests move by hand; ``sleep`` advances it instead of waiting."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def cli_exit(args: list[str], monkeypatch) -> int:
    """Run ``incanon ARGS`` through the console entry point (user errors: one line, exit 2);
    returns the exit code. A traceback (a bug) propagates and fails the test."""
    import sys

    import pytest

    from incanon.cli.main import main

    monkeypatch.setattr(sys, "argv", ["incanon", *args])
    with pytest.raises(SystemExit) as stop:
        main()
    return int(stop.value.code or 0)
