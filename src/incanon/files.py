"""One writer for every file incanon writes for the user: readers see the old file or the whole
new one, never half of it, and nothing that is not a regular file is ever replaced.
(Reading user files safely is :mod:`incanon.reading`.)

Every file incanon writes for the user (worlds, items, claims, cards, reports, exports, saved
chats and scenes) goes through :func:`atomic_writer`. What it does depends on what the path is:

- a regular file, or a new path: a temporary file in the same folder, flushed and fsynced, then
  renamed over the target. A failure (a full disk, an exception, Ctrl-C) removes the temporary
  file and leaves the old one as it was;
- a symlink: the file it points to is written that way and the link stays (dotfiles kept as
  links into a synced folder keep working). A dangling link creates the file it names, when that
  file's folder exists; otherwise it is refused;
- a FIFO or a character device (``/dev/null``, ``/dev/stdout``, a terminal): opened and written
  through, never replaced (as root, a rename would put a regular file in place of
  ``/dev/null``). A FIFO nobody reads is refused instead of blocking;
- a folder, a socket, a block device or a symlink loop: refused with one line, nothing written.

Refusals and a full disk are :class:`FileWriteError` / :class:`FileNoSpaceError`: one line for
the user (:class:`~incanon.errors.IncanonError`) that is also an ``OSError``, so callers that
catch write failures as ``OSError`` keep doing so.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from incanon.errors import NoSpaceError, WriteError
from incanon.jsonlines import iter_jsonl_objects  # noqa: F401  (re-exported for older imports)

_NO_SPACE = {errno.ENOSPC, errno.EFBIG, getattr(errno, "EDQUOT", errno.ENOSPC)}
_REFUSED_KINDS = ((stat.S_ISSOCK, "a socket"), (stat.S_ISBLK, "a block device"))


class FileWriteError(WriteError, OSError):
    """A file the user asked for cannot be written (a folder, a socket, a FIFO nobody reads, a
    link to nowhere); one line naming it. Also an ``OSError`` for callers that catch those."""


class FileNoSpaceError(NoSpaceError, OSError):
    """The disk (or a size limit) ran out while writing a file; the old file is kept."""


@dataclass(frozen=True)
class Destination:
    """Where a write to a path the user gave really goes.

    ``path``: the file written (a symlink's target, else the path itself); ``through``: the
    path is a FIFO, a character device or an open descriptor (``/proc/self/fd/1``), opened and
    written in place rather than replaced."""

    path: Path
    through: bool = False
    append: bool = False


def destination(path: str | os.PathLike[str]) -> Destination:
    """Where :func:`atomic_writer` would write ``path``, or a :class:`FileWriteError` when it
    refuses it. Opens nothing, so commands check ``--save`` / ``--out`` before any work."""
    given = Path(path).expanduser()
    try:
        mode = os.stat(given).st_mode  # follows links, /proc/self/fd's magic ones included
    except FileNotFoundError:
        if not os.path.islink(given):
            return Destination(given)  # a new file (missing folders are created)
        real = Path(os.path.realpath(given))
        if not real.parent.is_dir():
            raise FileWriteError(f"{given} is a symlink to {real}, whose folder does not exist; nothing was "
                                 "written") from None
        return Destination(real)  # the file the link names is created; the link stays
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise FileWriteError(f"{given} is a symlink loop (it never reaches a file); nothing was written") from None
        if exc.errno == errno.ENOTDIR:
            raise FileWriteError(f"cannot write {given}: a part of its folder path is a file, not a folder") from None
        raise FileWriteError(f"cannot write {given}: {exc.strerror}") from None
    if stat.S_ISDIR(mode):
        raise FileWriteError(f"{given} is a directory, expected a file; nothing was written")
    if stat.S_ISFIFO(mode) or stat.S_ISCHR(mode):
        return Destination(given, through=True)
    for test, kind in _REFUSED_KINDS:
        if test(mode):
            raise FileWriteError(f"{given} is {kind}, expected a regular file; nothing was written")
    real = Path(os.path.realpath(given))
    if real.parts[:2] == ("/", "proc"):
        # /dev/stdout redirected to a file: the shell's open file, appended to, never replaced.
        return Destination(given, through=True, append=True)
    return Destination(real)


@contextmanager
def atomic_writer(path: str | os.PathLike[str], *, binary: bool = False) -> Iterator[IO[Any]]:
    """A stream (UTF-8 text with ``\\n`` line ends, or bytes with ``binary``) whose content
    replaces ``path`` when the block ends without an error; see the module for symlinks, devices
    and FIFOs. Missing parent folders are created."""
    given = Path(path).expanduser()
    where = destination(given)
    if where.through:
        with _written_through(given, where, binary) as stream:
            yield stream
        return
    target = where.path
    _make_folder(given, target.parent)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise _naming(exc, given, kept=target.exists()) from None
    try:
        stream_cm = os.fdopen(fd, "wb") if binary else os.fdopen(fd, "w", encoding="utf-8", newline="\n")
        with stream_cm as stream:
            yield stream
            stream.flush()
            os.fsync(stream.fileno())
        # mkstemp makes 0600: keep the mode of the file replaced, else the usual 0644.
        os.chmod(tmp, target.stat().st_mode & 0o777 if target.exists() else 0o644)
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        # A full disk or a size limit hits the hidden temporary file: name the file the user asked for.
        raise _naming(exc, given, kept=target.exists()) from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _make_folder(given: Path, folder: Path) -> None:
    """Create ``folder`` (and its parents), noting it so a failed command removes it again."""
    if folder.is_dir():
        return
    from incanon.created import not_empty, track_new

    track_new(folder, keep=not_empty(folder))
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise FileWriteError(f"cannot write {given}: a part of its folder path is a file, not a folder") from None
    except OSError as exc:
        raise _naming(exc, given, kept=False) from None


@contextmanager
def _written_through(given: Path, where: Destination, binary: bool) -> Iterator[IO[Any]]:
    """``given`` opened and written in place (a FIFO, a device, an open descriptor)."""
    flags = os.O_WRONLY | os.O_NOCTTY | (os.O_APPEND if where.append else 0)
    fifo = stat.S_ISFIFO(os.stat(given).st_mode)
    try:
        # A FIFO with no reader would block forever; O_NONBLOCK makes that ENXIO instead.
        fd = os.open(given, flags | (os.O_NONBLOCK if fifo else 0))
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise FileWriteError(f"{given} is a FIFO (named pipe) that nothing reads; nothing was written") from None
        raise _naming(exc, given, kept=True) from None
    if fifo:  # writes then wait for the reader as usual
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
    try:
        with os.fdopen(fd, "wb") if binary else os.fdopen(fd, "w", encoding="utf-8", newline="\n") as stream:
            yield stream
            stream.flush()
    except OSError as exc:
        raise _naming(exc, given, kept=True, through=True) from None


def _naming(exc: OSError, given: Path, *, kept: bool, through: bool = False) -> OSError:
    """``exc`` as one line about ``given`` (not the temporary file beside it)."""
    if isinstance(exc, (FileWriteError, FileNoSpaceError)):
        return exc
    if exc.errno in _NO_SPACE:
        if through:
            return FileNoSpaceError(f"no space left on the device {given}: what was written there is incomplete")
        old = "the previous file is kept as it was" if kept else "nothing was written"
        return FileNoSpaceError(f"no space left to write {given} ({exc.strerror}); {old}. Free some space "
                                "and try again")
    if exc.errno is None:
        return exc
    return type(exc)(exc.errno, exc.strerror, str(given))


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes) -> Path:
    """Replace ``path`` with ``data`` atomically; returns the path written."""
    with atomic_writer(path, binary=True) as stream:
        stream.write(data)
    return Path(path).expanduser()


def write_text_atomic(path: str | os.PathLike[str], text: str) -> Path:
    """Replace ``path`` with ``text`` atomically; returns the path written."""
    with atomic_writer(path) as stream:
        stream.write(text)
    return Path(path).expanduser()


def write_lines_atomic(path: str | os.PathLike[str], lines: Iterable[str]) -> int:
    """Replace ``path`` with one line per item of ``lines`` (a newline is added to each),
    streamed, atomically; returns how many lines were written."""
    count = 0
    with atomic_writer(path) as stream:
        for line in lines:
            stream.write(line + "\n")
            count += 1
    return count
