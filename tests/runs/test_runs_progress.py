"""Progress off a terminal: a line every few seconds even while no sample finishes."""

from __future__ import annotations

import io
import time

from rich.console import Console

from incanon.runs.progress import RunProgress


def test_lines_keep_coming_while_a_slow_first_sample_runs():
    stream = io.StringIO()
    progress = RunProgress(console=Console(file=stream, force_terminal=False, markup=False), every_s=0.2)
    progress.start("slow", total=3)
    # Wait for the lines, not for a fixed time: a busy machine may run the timer late.
    deadline = time.monotonic() + 20
    while stream.getvalue().count("working on the first") < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    progress.advance(True)
    progress.stop("done")
    text = stream.getvalue()
    assert text.count("working on the first") >= 2, text
    assert text.rstrip().endswith("done")


def test_a_disabled_progress_prints_nothing():
    stream = io.StringIO()
    progress = RunProgress(False, console=Console(file=stream, force_terminal=False), every_s=0.1)
    progress.start("x", total=1)
    time.sleep(0.3)
    progress.stop("done")
    assert stream.getvalue() == ""
