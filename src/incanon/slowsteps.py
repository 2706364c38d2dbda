"""Saying that a long step is running, instead of waiting in silence.

A first chat on a fresh home embeds the sample world and loads the local model before it
answers: minutes on a small machine, with nothing on the screen. :func:`slow_step` wraps such a
step: if it is still running after ``after_s`` seconds, a NOTICE says what it is doing (on stderr,
as every notice of incanon), then one line every ``every_s`` seconds with how far it is, and a last
line when it ends. A step that ends sooner prints nothing, so quick commands and tests stay quiet.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from incanon.logs import NOTICE

log = logging.getLogger("incanon.progress")

#: Seconds a step runs before it is announced (the promise is: within 5 s of a slow step).
FIRST_NOTICE_S = 2.0
#: Seconds between two progress lines of one step.
EVERY_S = 5.0


_lock = threading.Lock()
_running: list[threading.Event] = []  # the steps running now, outermost first


def _innermost(step: threading.Event) -> bool:
    with _lock:
        return bool(_running) and _running[-1] is step


@contextmanager
def slow_step(what: str, *, status: Callable[[], str] | None = None, after_s: float = FIRST_NOTICE_S,
              every_s: float = EVERY_S) -> Iterator[None]:
    """Run the block; announce ``what`` if it takes longer than ``after_s`` seconds, then say how
    far it is every ``every_s`` seconds (``status()``, e.g. ``"64/187 chunks"``, else the time
    taken) and when it is done."""
    started = time.monotonic()
    finished = threading.Event()
    said = threading.Event()

    def far() -> str:
        try:
            extra = status() if status is not None else ""
        except Exception:  # noqa: BLE001 - a progress line must never break the step it reports
            extra = ""
        elapsed = f"{time.monotonic() - started:.0f} s"
        return f"{extra}, {elapsed}" if extra else elapsed

    def watch() -> None:
        if finished.wait(after_s):
            return
        said.set()
        log.log(NOTICE, "%s… (%s)", what, far())
        while not finished.wait(every_s):
            if _innermost(finished):  # a step inside this one (embedding inside a reply) speaks for both
                log.log(NOTICE, "%s: %s", what, far())

    watcher = threading.Thread(target=watch, name="incanon-slow-step", daemon=True)
    with _lock:
        _running.append(finished)
    watcher.start()
    try:
        yield
    finally:
        finished.set()
        watcher.join()
        with _lock:
            _running.remove(finished)
        if said.is_set():
            log.log(NOTICE, "%s: done (%.0f s)", what, time.monotonic() - started)
