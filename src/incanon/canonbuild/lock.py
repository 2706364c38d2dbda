"""One build at a time per store (``canon build``, ``graph build``): an exclusive lock on a file
inside the store folder.

Two builds of one book into one store at once both found the work missing, both wrote it and
both integrated the graph (8 entities for 4), or the second opened the store file the first had
just created and not yet filled ("an empty file, not a canon store"), failed, and removed what it
believed it had created: the first build's store and response cache. The second build now stops
before it opens anything, naming the store and the process that holds it.

``fcntl.flock`` on ``<store>/.canon-build.lock``: the kernel drops the lock when its holder
exits, however it exits (``kill -9`` included), so a lock is never stale and is never deleted
to be taken. The holder writes its pid and its command into the file, for the refusal's message
only. Both builds take the same lock: each writes the store's graph, so they exclude each other.
"""

from __future__ import annotations

import errno
import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from incanon.errors import IncanonError, InputError

LOCK_NAME = ".canon-build.lock"


class BuildLockedError(IncanonError):
    """Another build is writing the same store."""

    exit_code = 75  # EX_TEMPFAIL: try again later


def _holder(fd: int) -> str:
    """Who holds the lock, as the refusal names it: ``canon build (pid 4821)``."""
    try:
        text = os.pread(fd, 64, 0).decode("ascii", "replace").strip()
    except OSError:
        return "build (unknown pid)"
    pid, _, command = text.partition(" ")
    if not pid.isdigit():
        return "build (unknown pid)"
    return f"{command or 'build'} (pid {pid})"


def _forget_new_paths() -> None:
    # The store folder (or INCANON_HOME) this command noted as new may be the holder's, made an
    # instant before: a refused build must remove nothing it did not itself create.
    from incanon import created

    created.reset()


@contextmanager
def build_lock(store: Path, command: str = "canon build") -> Iterator[Path]:
    """Hold the build lock of the store folder ``store`` (created when missing) for the block;
    :class:`BuildLockedError` at once when another process holds it. ``command`` names this
    build in another one's refusal."""
    from incanon.canon.schema import DB_NAME
    from incanon.created import holds_rows, track_new

    root = store.expanduser()
    if root.exists() and not root.is_dir():
        raise InputError(f"canon store {root} is a file; a store is a directory (it holds {DB_NAME})")
    # A store folder made here goes again when the build fails before a work is in it, as the
    # store itself would (its lock file with it).
    track_new(root, keep=holds_rows(root / DB_NAME, "works"))
    root.mkdir(parents=True, exist_ok=True)
    path = root / LOCK_NAME
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            holder = _holder(fd)
            os.close(fd)
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise
            _forget_new_paths()
            raise BuildLockedError(
                f"{root}: another {holder} is writing this store; wait for it to finish and run "
                "this command again (it resumes from the response cache), or build into another --store") from None
        # The file may have been removed (with a failed build's new store folder) between our
        # open and our lock: then the lock is on a file nobody else will see; take it again.
        try:
            same = os.path.samestat(os.fstat(fd), os.stat(path))
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)
        root.mkdir(parents=True, exist_ok=True)
    try:
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()} {command}\n".encode("ascii", "replace"), 0)
        except OSError:
            pass  # a full disk: the pid is for another build's message only, the lock holds without it
        yield path
    finally:
        os.close(fd)  # releases the lock; the file stays (deleting it would race the next taker)


__all__ = ["LOCK_NAME", "BuildLockedError", "build_lock"]
