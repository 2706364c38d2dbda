"""One ``incanon serve`` per chat store.

Two servers over one ``INCANON_HOME`` each held a kept chat in memory and wrote it back whole:
a chat continued on B, then on A, lost B's line. Rather than merge, a server holds a lock on the
folder of its chat store (``INCANON_HOME`` by default, where ``chats.sqlite`` and
``scenes.sqlite`` live) for as long as it runs; a second one is refused in one line naming the
first one's pid and address, and how to run both (``--chats`` elsewhere, or ``--no-chats``).

The lock is the operating system's (``flock``): it goes with the process, so a server that was
killed leaves nothing to clean up; the file's text only says who holds it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import IO, Any

from incanon.errors import ConfigError

LOCK_NAME = "incanon-serve.lock"


def chat_folder(chats: Path | bool) -> Path | None:
    """The folder whose stores a server with ``ServeConfig.chats == chats`` writes; None for
    chats kept in memory only (nothing to share)."""
    if chats is False:
        return None
    if chats is True:
        from incanon.paths import home

        return home()
    return Path(chats).expanduser().resolve().parent


class ServeLock:
    """The lock of one folder of kept chats, held from :meth:`acquire` to :meth:`release`."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / LOCK_NAME
        self._file: IO[str] | None = None

    def acquire(self, url: str) -> None:
        """Take the lock, recording this process and ``url``; a ``ConfigError`` naming the
        holder when another server has it."""
        try:
            import fcntl
        except ImportError:  # Windows: no flock; two servers there are not guarded
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(self.path, "a+", encoding="utf-8")
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.seek(0)
            holder = _holder(handle.read())
            handle.close()
            raise ConfigError(f"another incanon serve ({holder}) keeps its chats in {self.path.parent}: two servers "
                              "on one chat store lose each other's lines; stop it, or start this one with "
                              "--chats OTHER.sqlite or --no-chats") from None
        handle.seek(0)
        handle.truncate()
        handle.write(json.dumps({"pid": os.getpid(), "url": url}) + "\n")
        handle.flush()
        self._file = handle

    def release(self) -> None:
        """Let the lock go (closing the file releases it)."""
        if self._file is not None:
            self._file.close()
            self._file = None


def _holder(text: str) -> str:
    try:
        data: Any = json.loads(text)
        return f"pid {int(data['pid'])}, {str(data['url'])[:100]}"
    except (ValueError, KeyError, TypeError):
        return "pid unknown"


__all__ = ["LOCK_NAME", "ServeLock", "chat_folder"]
