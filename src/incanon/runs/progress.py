"""Progress of a run on stderr: a rich bar on a terminal, a line every few seconds elsewhere.

stdout stays clean for ``--json`` documents, so nothing here ever writes there.
"""

from __future__ import annotations

import logging
import threading
import time

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

logger = logging.getLogger("incanon.runs")


class RateColumn(ProgressColumn):
    """Samples per second."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text(f"{speed:,.1f} it/s" if speed else "? it/s", style="progress.data.speed")


class RunProgress:
    """Reports a run's progress: ``start`` once, ``advance`` per sample, ``stop`` at the end.

    ``enabled=False`` reports nothing but notes (sent to the ``incanon.runs`` logger). On a
    terminal it shows a bar with done/total, rate, elapsed and ETA; on anything else (CI logs,
    pipes) a plain line every ``every_s`` seconds.
    """

    def __init__(self, enabled: bool = True, *, console: Console | None = None, every_s: float = 10.0):
        if console is None:
            from incanon.consoles import make_console

            console = make_console(stderr=True)
        self.console = console
        self.enabled = enabled
        self.live = enabled and self.console.is_terminal
        self.every_s = every_s
        self._bar: Progress | None = None
        self._task: int | None = None
        self.total: int | None = None
        self.done = self.ok = self.failed = 0
        self._t0 = self._last_line = time.monotonic()
        self._stop_beat = threading.Event()
        self._beat: threading.Thread | None = None
        self._print_lock = threading.Lock()

    def _heartbeat(self) -> None:
        while not self._stop_beat.wait(self.every_s / 2):
            now = time.monotonic()
            if now - self._last_line >= self.every_s:
                self._last_line = now
                with self._print_lock:
                    self.console.print(self.line(), highlight=False, soft_wrap=True)

    def start(self, label: str, total: int | None) -> None:
        """Begin reporting ``total`` samples (None when unknown: no ETA then)."""
        self.total = total
        self._t0 = self._last_line = time.monotonic()
        if not self.live:
            if self.enabled and self.every_s > 0:
                # A sample on a small local model can take minutes: say something every few
                # seconds even when none finished, so a log never goes silent.
                self._stop_beat.clear()
                self._beat = threading.Thread(target=self._heartbeat, name="incanon-progress", daemon=True)
                self._beat.start()
            return
        self._bar = Progress(
            TextColumn("{task.description}", style="bold", markup=False),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[ok]} ok {task.fields[failed]} failed", markup=False),
            RateColumn(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=self.console,
            transient=False,
        )
        self._task = self._bar.add_task(label, total=total, ok=0, failed=0)
        self._bar.start()

    def advance(self, ok: bool) -> None:
        """Count one finished sample."""
        self.done += 1
        if ok:
            self.ok += 1
        else:
            self.failed += 1
        if self._bar is not None and self._task is not None:
            self._bar.update(self._task, advance=1, ok=self.ok, failed=self.failed)
        elif self.enabled:
            now = time.monotonic()
            if now - self._last_line >= self.every_s:
                self._last_line = now
                with self._print_lock:
                    self.console.print(self.line(), highlight=False, soft_wrap=True)

    def line(self) -> str:
        """One-line status: done/total, failures, rate, ETA."""
        elapsed = max(time.monotonic() - self._t0, 1e-9)
        rate = self.done / elapsed
        text = f"{self.done}" + (f"/{self.total}" if self.total else "") + f" done, {self.failed} failed"
        text += f", {rate:,.1f} it/s" if self.done else f", {elapsed:,.0f}s elapsed, working on the first"
        if self.total and self.done and rate > 0:
            text += f", ETA {max(self.total - self.done, 0) / rate:,.0f}s"
        return text

    def note(self, message: str) -> None:
        """Tell the user something (above the bar when it is shown)."""
        if self.enabled:
            self.console.print(f"note: {message}", highlight=False, soft_wrap=True)
        else:
            logger.warning(message)

    def stop(self, final: str | None = None) -> None:
        """Remove the bar and print ``final`` (when reporting is enabled)."""
        self._stop_beat.set()
        if self._beat is not None:
            self._beat.join(timeout=2)
            self._beat = None
        if self._bar is not None:
            if self.total is None and self._task is not None:
                self._bar.update(self._task, total=self.done)
            self._bar.stop()
            self._bar = None
        if self.enabled and final:
            self.console.print(final, highlight=False, soft_wrap=True)
