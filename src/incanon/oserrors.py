"""The machine under the user: a full disk, a file size limit, a read-only file or folder.

These are not bugs and not bad input, yet they reach incanon as ``OSError`` from any write or as
``sqlite3`` errors from any statement. :func:`user_error` turns them into one-line
:class:`~incanon.errors.IncanonError` messages naming the folder or file, so the CLI prints one
line and exits 2 instead of a traceback.
"""

from __future__ import annotations

import errno
import os
import sqlite3
from pathlib import Path

from incanon.errors import IncanonError, NoSpaceError, WriteError

_NO_SPACE = {errno.ENOSPC, errno.EFBIG, getattr(errno, "EDQUOT", errno.ENOSPC)}
_NOT_WRITABLE = {errno.EACCES, errno.EPERM, errno.EROFS}

# SQLite primary result codes (the low byte of the extended code).
SQLITE_READONLY = 8
SQLITE_IOERR = 10
SQLITE_FULL = 13
SQLITE_CANTOPEN = 14


def folder_of(path: str | os.PathLike[str]) -> str:
    """The folder a file is (or would be) in, as shown in messages."""
    target = Path(path)
    return str(target if target.is_dir() else target.parent)


def no_space(path: str | os.PathLike[str], detail: str = "") -> NoSpaceError:
    """``no space left on DIR`` for a write to ``path`` (or into the folder ``path``)."""
    note = f" ({detail})" if detail else ""
    return NoSpaceError(f"no space left on {folder_of(path)}{note}; free some space and run the same command "
                        "again (finished samples are kept and it resumes from them)")


def sqlite_user_error(exc: sqlite3.Error, path: str | os.PathLike[str], what: str) -> IncanonError | None:
    """The user error for a SQLite error on the ``what`` at ``path``; None when it is none of
    the machine's conditions (a bug, a lock, damage: reported elsewhere)."""
    code = getattr(exc, "sqlite_errorcode", None)
    primary = None if code is None else code & 0xFF
    text = str(exc).lower()
    if primary == SQLITE_FULL or "disk is full" in text:
        return no_space(path)
    if primary == SQLITE_IOERR or "disk i/o error" in text:
        # SQLite reports a write refused by a file size limit (EFBIG) as an I/O error.
        return no_space(path, f"or a file size limit: {what} could not be written")
    if primary == SQLITE_READONLY or "readonly database" in text:
        return WriteError(f"{path}: {what} is read-only (its file or folder cannot be written); nothing was "
                          "changed. Reading commands (runs list, runs show, report) work on it as it is")
    if primary == SQLITE_CANTOPEN or "unable to open database" in text:
        return WriteError(f"{path}: cannot open {what} (is its folder missing or read-only?)")
    return None


def user_error(exc: BaseException) -> IncanonError | None:
    """The one-line user error for ``exc`` when the machine caused it, else None."""
    if isinstance(exc, OSError) and exc.errno is not None:
        where = exc.filename if exc.filename is not None else "the output folder"
        if exc.errno in _NO_SPACE:
            return no_space(where) if exc.filename is not None else NoSpaceError(
                "no space left on the device being written (or a file size limit)")
        if exc.errno in _NOT_WRITABLE:
            return WriteError(f"{where}: cannot write ({exc.strerror}); nothing was changed")
    if isinstance(exc, sqlite3.Error):
        return sqlite_user_error(exc, "a store", "a store")
    return None
