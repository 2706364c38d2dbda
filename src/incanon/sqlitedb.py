"""SQLite connections that name their file when it is damaged.

Every store incanon keeps (canon store, run store, response cache) is one SQLite file a user can
point anywhere: at a truncated copy, a file that is not SQLite, a disk image gone bad. SQLite
reports that as ``sqlite3.DatabaseError`` from whichever statement first touches a bad page,
deep inside some read. Connections made here turn those errors, wherever they happen, into one
:class:`DamagedStoreError` line that names the file and says that nothing was changed (every
write is one transaction, so a failed one is rolled back). A full disk, a file size limit or a
read-only file become one line too (:mod:`incanon.oserrors`), and :func:`connect_read_only`
opens a store for commands that only read, so they work on a store nobody may write.
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path
from typing import Any

from incanon.errors import IncanonError, InputError

# SQLite result codes that mean the file itself is bad, not the statement or a lock.
_DAMAGE_CODES = {11, 26}  # SQLITE_CORRUPT, SQLITE_NOTADB
_DAMAGE_WORDS = ("malformed", "not a database", "file is encrypted", "disk image")


class DamagedStoreError(InputError):
    """A store file is not SQLite, is truncated or corrupted."""


def is_damage(exc: BaseException) -> bool:
    """True when ``exc`` says the database file is damaged (not locked, not a bad statement)."""
    if not isinstance(exc, sqlite3.DatabaseError) or isinstance(exc, sqlite3.IntegrityError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None and (code & 0xFF) in _DAMAGE_CODES:
        return True
    return any(word in str(exc).lower() for word in _DAMAGE_WORDS)


def damaged(path: Path | str, what: str, exc: BaseException) -> DamagedStoreError:
    """The one-line error for a damaged ``what`` at ``path``."""
    return DamagedStoreError(
        f"{what} is damaged or is not an incanon {what} ({exc}); nothing was changed "
        f"(restore it from a backup, or point to another file)",
        source=str(path),
    )


class _GuardedCursor(sqlite3.Cursor):
    _where: tuple[str, str]

    def _guard(self, call: Any, *args: Any) -> Any:
        try:
            return call(*args)
        except sqlite3.DatabaseError as exc:
            if is_damage(exc):
                raise damaged(*self._where, exc) from None
            if _is_rollback(args) and "no transaction is active" in str(exc):
                # SQLite rolls back by itself on a full disk or an I/O error; the caller's own
                # ROLLBACK then has nothing to do and must not hide the first error.
                return self
            from incanon.oserrors import sqlite_user_error

            mapped = sqlite_user_error(exc, *self._where)
            if mapped is not None:
                raise mapped from None
            raise

    def execute(self, *args: Any) -> Any:  # type: ignore[override]
        return self._guard(super().execute, *args)

    def executemany(self, *args: Any) -> Any:  # type: ignore[override]
        return self._guard(super().executemany, *args)

    def executescript(self, *args: Any) -> Any:  # type: ignore[override]
        return self._guard(super().executescript, *args)

    def fetchone(self) -> Any:
        return self._guard(super().fetchone)

    def fetchmany(self, *args: Any) -> Any:
        return self._guard(super().fetchmany, *args)

    def fetchall(self) -> Any:
        return self._guard(super().fetchall)

    def __next__(self) -> Any:
        return self._guard(super().__next__)


class GuardedConnection(sqlite3.Connection):
    """A connection whose statements and row fetches raise :class:`DamagedStoreError` for a bad file."""

    _where: tuple[str, str] = ("", "store")

    def cursor(self, factory: Any = None) -> Any:  # type: ignore[override]
        cur = super().cursor(factory or _GuardedCursor)
        cur._where = self._where
        return cur

    def execute(self, *args: Any) -> Any:  # type: ignore[override]
        return self.cursor().execute(*args)

    def executemany(self, *args: Any) -> Any:  # type: ignore[override]
        return self.cursor().executemany(*args)

    def executescript(self, *args: Any) -> Any:  # type: ignore[override]
        return self.cursor().executescript(*args)


def _is_rollback(args: tuple[Any, ...]) -> bool:
    return bool(args) and isinstance(args[0], str) and args[0].strip().upper() == "ROLLBACK"


def connect(path: Path | str, what: str, **kwargs: Any) -> GuardedConnection:
    """``sqlite3.connect(path, **kwargs)`` with damage reported as :class:`DamagedStoreError`
    naming ``what`` (``"run store"``, ``"canon store"``) and the file."""
    try:
        conn = sqlite3.connect(str(path), factory=GuardedConnection, **kwargs)
    except sqlite3.Error as exc:
        from incanon.oserrors import sqlite_user_error

        raise (sqlite_user_error(exc, path, what) or exc) from None
    conn._where = (str(path), what)
    return conn  # type: ignore[return-value]


def connect_read_only(path: Path | str, what: str, **kwargs: Any) -> GuardedConnection:
    """A connection for commands that only read ``path``; the caller writes nothing through it.

    Where the user may write the file and its folder, it is an ordinary connection (which tidies
    SQLite's ``-wal`` / ``-shm`` files away when it closes). Where they may not (a read-only
    file, folder or disk), it is opened ``mode=ro``, and if SQLite cannot even make the
    shared-memory file a WAL store wants, as immutable (nobody can be writing it there)."""
    from urllib.parse import quote

    target = Path(path)
    if os.access(target, os.W_OK) and os.access(target.absolute().parent, os.W_OK):
        return connect(target, what, **kwargs)
    uri = "file:" + quote(str(target.absolute()))
    for flags in ("?mode=ro", "?mode=ro&immutable=1"):
        try:
            conn = sqlite3.connect(uri + flags, uri=True, factory=GuardedConnection, **kwargs)
            conn._where = (str(path), what)
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()  # opening is lazy: read now
            return conn  # type: ignore[return-value]
        except DamagedStoreError:
            raise
        except (sqlite3.OperationalError, IncanonError):
            if flags.endswith("immutable=1"):
                raise
    raise AssertionError("unreachable")


def use_wal(conn: sqlite3.Connection, timeout_s: float) -> None:
    """Switch ``conn`` to WAL journaling, waiting up to ``timeout_s`` for other processes. The
    switch needs the database to itself, and SQLite reports "database is locked" at once, without
    its busy handler, while another process is creating the same file: retry until it is free."""
    deadline = time.monotonic() + max(0.0, timeout_s)
    delay = 0.01
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if ("locked" not in str(exc) and "busy" not in str(exc)) or time.monotonic() >= deadline:
                raise
        time.sleep(delay)
        delay = min(0.25, delay * 2)


def _head(path: Path, what: str) -> tuple[int, bytes]:
    from incanon.reading import check_file

    check_file(path, what)  # a FIFO would block the open below; a symlink loop, one line
    try:
        size = path.stat().st_size
        with open(path, "rb") as stream:
            return size, stream.read(100)
    except IsADirectoryError:
        raise InputError(f"{what} is a directory, expected a file", source=str(path)) from None
    except OSError as exc:
        raise InputError(f"cannot read {what}: {exc.strerror}", source=str(path)) from None


def in_use(path: Path) -> bool:
    """Whether SQLite has ``path`` open in WAL mode (its ``-shm`` file exists beside it)."""
    return Path(f"{path}-shm").exists()


def require_database(path: Path, what: str, *, wait_s: float = 0.0) -> None:
    """Refuse a file that cannot be an existing SQLite store (empty, or without SQLite's
    header), before anything opens it: SQLite would silently treat an empty file as a new
    database and write a schema into it. ``wait_s``: how long an empty file may take to get its
    header, for stores that several processes may create at once (SQLite creates the file
    first and writes the header with the first transaction)."""
    if in_use(path):
        # Open in WAL mode by some connection (maybe of this process): it is SQLite's, and
        # reading it here would be harmful. Closing *any* descriptor of a file drops every POSIX
        # lock this process holds on it, those of SQLite's own connections included: a server
        # that opened a second session on a store lost the first one's locks, and SQLite then
        # removed the shared-memory file under it (SQLITE_IOERR_SHORT_READ).
        return
    size, head = _head(path, what)
    deadline = time.monotonic() + wait_s
    while not head and time.monotonic() < deadline:
        time.sleep(0.02)
        size, head = _head(path, what)
    if not head:
        raise DamagedStoreError(f"{what} is an empty file, not an incanon {what}; nothing was changed",
                                source=str(path))
    if head[:16] != b"SQLite format 3\x00":
        raise DamagedStoreError(f"{what} is not a SQLite file, so not an incanon {what}; nothing was changed",
                                source=str(path))
    # The header's page size and page count (valid when its change counter matches) say how
    # long the file must be; SQLite only finds a cut-off file when a read reaches the lost pages.
    page_size = int.from_bytes(head[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    if len(head) < 100 or page_size < 512 or page_size & (page_size - 1):
        raise DamagedStoreError(f"{what} has a damaged SQLite header; nothing was changed", source=str(path))
    pages = int.from_bytes(head[28:32], "big")
    counter_ok = head[24:28] == head[92:96]
    if counter_ok and pages and size < pages * page_size:
        raise DamagedStoreError(
            f"{what} is truncated ({size:,} of {pages * page_size:,} bytes); nothing was changed",
            source=str(path))
