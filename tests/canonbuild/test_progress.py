"""Progress of the long stages of ``canon build``: quiet for short stages, a line with the time
left for long ones, and every stage of a real build reports through it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from incanon.canonbuild import progress as progress_module
from incanon.canonbuild.progress import Progress, duration
from incanon.testing.cli import run_main

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "examples" / "book" / "saltmere.txt"
HELPER = f"scripted:{ROOT / 'examples' / 'book' / 'helper.json'}"


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _progress(clock: Clock, every: float = 5.0) -> tuple[Progress, list[str]]:
    said: list[str] = []
    return Progress(said.append, "graph", every=every, clock=clock), said


def test_a_stage_done_within_the_interval_says_nothing() -> None:
    clock = Clock()
    progress, said = _progress(clock)
    progress.update(0, 7, "chunks extracted")
    for done in range(1, 8):
        clock.now += 0.5
        progress.update(done)
    assert said == []


def test_a_long_stage_says_how_far_it_is_and_about_how_long_is_left() -> None:
    clock = Clock()
    progress, said = _progress(clock)
    progress.update(0, 129, "chunks extracted")
    clock.now += 6
    progress.update(3)
    assert said == ["graph: 3 of 129 chunks extracted, 6s so far, about 4m 12s left"]
    clock.now += 2
    progress.update(4)
    assert len(said) == 1  # the next line only when this one is old enough


def test_a_new_phase_counts_its_estimate_from_its_own_start() -> None:
    clock = Clock()
    progress, said = _progress(clock)
    progress.update(0, 10, "chunks extracted")
    clock.now += 100
    progress.update(10)
    progress.update(0, 50, "chunk vectors")
    clock.now += 10
    progress.update(25)
    assert said[-1] == "graph: 25 of 50 chunk vectors, 10s so far, about 10s left"


def test_a_phase_of_unknown_size_says_how_much_so_far_and_a_waiting_call_is_said_too() -> None:
    clock = Clock()
    progress, said = _progress(clock)
    progress.update(0, None, "helper calls merging entities")
    clock.now += 7
    progress.advance(2)
    assert said == ["graph: 2 helper calls merging entities so far, 7s"]
    progress.update(0, 4, "profile calls")
    clock.now += 30
    progress.tick()  # what the ticker does while the first call is still out
    assert said[-1] == "graph: 0 of 4 profile calls, 30s so far, no estimate yet"
    progress.advance(5)  # repair turns: more calls than planned
    clock.now += 6
    progress.tick()
    assert said[-1] == "graph: 4 of 4 profile calls, 36s so far, finishing"


def test_lines_come_less_often_as_a_stage_runs_on() -> None:
    clock = Clock()
    progress, said = _progress(clock)
    progress.update(0, 10_000, "chunks extracted")
    for _ in range(1800):  # half an hour, a tick a second
        clock.now += 1
        progress.advance()
    assert 40 <= len(said) <= 80  # not 360 (one every 5 s)


def test_durations_are_short() -> None:
    assert [duration(s) for s in (0, 42, 185, 3720)] == ["0s", "42s", "3m 05s", "1h 02m"]


def test_every_long_stage_of_a_build_reports_progress(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """With no interval every update is said: each stage's lines, with what it counts."""
    from tests.canonbuild import build_driver  # noqa: F401  (registers the recording embedder)

    monkeypatch.setattr(progress_module, "EVERY_S", 0.0)
    monkeypatch.setattr(progress_module, "SPACING", 0.0)
    code = run_main(["canon", "build", str(BOOK), "--store", str(tmp_path / "canon"), "--helper", HELPER,
                     "--cache", str(tmp_path / "cache.sqlite"), "--embedder", f"recording:{tmp_path / 'log'}",
                     "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert json.loads(captured.out)["vectors"]["embedded"] == 7
    lines = captured.err.splitlines()
    # Each stage's phases with their sizes: 4 chapters, 7 scenes, 3 main characters with 7 time
    # points, 7 graph chunks (and their vectors), 7 canon chunks.
    for expected in (r"scenes: \d of 4 chapter split calls", r"scenes: \d of 7 participant calls",
                     r"characters: \d helper calls naming characters so far",
                     r"time points: \d of 3 calls choosing time points", r"profiles: \d of 7 profile calls",
                     r"graph: \d of 7 chunks extracted", r"graph: \d of 7 chunk vectors",
                     r"vectors: \d of 7 chunks embedded"):
        assert any(re.match(expected, line) for line in lines), (expected, captured.err)
    assert any(re.match(r"graph: [1-6] of 7 chunks extracted, \d+s so far, about \d+s left", line) for line in lines)
