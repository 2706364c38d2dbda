"""An interrupt raised while the build's main task runs is reported once, by the command: asyncio
does not add "Task exception was never retrieved" and a traceback after the resume line."""

from __future__ import annotations

import asyncio
import gc
import logging

import pytest

from incanon.canonbuild.interrupt import run_stoppable


async def _interrupted_in_the_task() -> None:
    # What the SIGINT handler of ``sigint_stops_at_once`` does when the signal lands while one
    # of the build's concurrent steps runs (a scene's participants, asked in a gather): that
    # step raises the interrupt, and the main task ends with it only while the rest is cancelled.
    async def step(i: int) -> None:
        await asyncio.sleep(0.01 * i)
        if i == 1:
            raise KeyboardInterrupt
        await asyncio.sleep(5)

    await asyncio.gather(*(step(i) for i in range(3)))


def _interrupt(run) -> bool:
    """Run the interrupted build as the command does: catch the interrupt and drop it (its
    traceback, which holds the task, goes with it)."""
    try:
        run(_interrupted_in_the_task())
    except KeyboardInterrupt:
        return True
    return False


def _never_retrieved(run, caplog: pytest.LogCaptureFixture) -> list[str]:
    caplog.clear()
    with caplog.at_level(logging.ERROR, logger="asyncio"):
        assert _interrupt(run)
        gc.collect()  # an unread task logs when it is collected
    return [r.getMessage() for r in caplog.records if "never retrieved" in r.getMessage()]


def test_the_interrupt_leaves_no_unread_task(caplog: pytest.LogCaptureFixture) -> None:
    assert _never_retrieved(run_stoppable, caplog) == []


def test_plain_asyncio_run_would_print_it(caplog: pytest.LogCaptureFixture) -> None:
    """The check above can fail: ``asyncio.run`` leaves the task's interrupt unread."""
    assert _never_retrieved(asyncio.run, caplog)


def test_a_finished_build_returns_its_result() -> None:
    async def build() -> int:
        await asyncio.sleep(0)
        return 7

    assert run_stoppable(build()) == 7
