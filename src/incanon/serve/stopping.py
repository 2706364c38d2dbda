"""How ``incanon serve`` stops on Ctrl-C or SIGTERM: within seconds, in one line.

uvicorn alone waited for every request in flight (a chat waiting on a 120 s model call held the
process for 117 s, saying nothing), and a second Ctrl-C ended it with a traceback fragment. Here:

- the first signal stops accepting connections and gives requests in flight
  :data:`GRACE_S` seconds, then cancels them (uvicorn's graceful-shutdown timeout);
- if the process has still not ended :data:`HARD_S` seconds after the signal (a session thread
  blocked in a model call), it ends there;
- a second signal ends it at once.

Whichever way it ends, it says one line on stderr. Nothing said is lost: a kept chat or scene is
written after every line (:mod:`incanon.serve.chat_store`), so only the replies being written
when the signal came are dropped, and the line says so.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
from types import FrameType
from typing import Any

import uvicorn

#: Seconds requests in flight get to finish after the first signal before they are cancelled.
GRACE_S = 2.0
#: Seconds after the first signal by which the process ends, whatever is still running.
HARD_S = 8.0


def _word(signum: int) -> str:
    return "terminated" if signum == signal.SIGTERM else "interrupted"


def exit_code(signum: int) -> int:
    """128 + the signal's number, as a shell reports a process a signal ended (143, 130)."""
    return 128 + signum


class StoppableServer(uvicorn.Server):
    """uvicorn's server with the stopping of this module's docstring; ``kept`` names where kept
    chats and scenes are (for the one line), None when chats are not kept."""

    def __init__(self, config: uvicorn.Config, kept: str | None) -> None:
        super().__init__(config)
        self.kept = kept
        self.signal: int | None = None
        self._said = threading.Lock()

    def line(self, signum: int, *, at_once: bool = False) -> str:
        """The one line said when the server stops on ``signum``."""
        how = "stopped at once" if at_once else "stopped"
        saved = (f"kept chats and scenes are saved in {self.kept}" if self.kept is not None
                 else "chats were in memory only (--no-chats)")
        return (f"{_word(signum)}: incanon serve {how}; replies being written were cancelled, "
                f"every line said before is kept ({saved})")

    def say_once(self, text: str) -> bool:
        """Write ``text`` to stderr unless a line was said already."""
        if not self._said.acquire(blocking=False):
            return False
        try:
            sys.stderr.write(text + "\n")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
        return True

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        """First signal: stop gracefully (bounded); a second one: end now."""
        if self.signal is not None:
            self.say_once(self.line(self.signal, at_once=True))
            os._exit(exit_code(self.signal))
        self.signal = sig
        self.should_exit = True
        # uvicorn logs the cancelled requests and the app's shutdown; the one line says it all.
        for name in ("uvicorn", "uvicorn.error", "uvicorn.asgi", "incanon"):
            logging.getLogger(name).setLevel(logging.CRITICAL)
        threading.Thread(target=self._deadline, args=(sig,), daemon=True, name="incanon-serve-deadline").start()

    def _deadline(self, sig: int) -> None:
        threading.Event().wait(HARD_S)
        self.say_once(self.line(sig))
        os._exit(exit_code(sig))


def uvicorn_config(app: Any, log_level: str) -> uvicorn.Config:
    """The uvicorn settings of ``incanon serve`` (graceful shutdown bounded by :data:`GRACE_S`)."""
    return uvicorn.Config(app, log_level=log_level, access_log=False, lifespan="on",
                          timeout_graceful_shutdown=GRACE_S)


__all__ = ["GRACE_S", "HARD_S", "StoppableServer", "exit_code", "uvicorn_config"]
