"""Atomic file writes: readers see the old file or the whole new one, never half of it.
(Reading user files safely is :mod:`incanon.reading`.)

Every file incanon writes for the user (worlds, items, claims, reports, exports, transcripts)
goes through here: a temporary file in the same folder, flushed and fsynced, then renamed over
the target. A failure (an exception, Ctrl-C) removes the temporary file and leaves the old one.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from incanon.jsonlines import iter_jsonl_objects  # noqa: F401  (re-exported for older imports)


@contextmanager
def atomic_writer(path: str | os.PathLike[str], *, binary: bool = False) -> Iterator[IO[Any]]:
    """A stream (UTF-8 text with ``\\n`` line ends, or bytes with ``binary``) whose content
    replaces ``path`` when the block ends without an error. Missing parent folders are created."""
    target = Path(path).expanduser()
    if not target.parent.is_dir():
        from incanon.created import not_empty, track_new

        track_new(target.parent, keep=not_empty(target.parent))
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise _naming(exc, target) from None
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
        raise _naming(exc, target) from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _naming(exc: OSError, target: Path) -> OSError:
    """``exc`` as the same error about ``target`` (not the temporary file beside it)."""
    if exc.errno is None:
        return exc
    return type(exc)(exc.errno, exc.strerror, str(target))


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
