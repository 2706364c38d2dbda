"""The machine's conditions become one-line user errors naming the folder or file."""

from __future__ import annotations

import errno
import sqlite3

from incanon.errors import NoSpaceError, WriteError
from incanon.oserrors import sqlite_user_error, user_error


def test_a_full_disk_or_a_size_limit_names_the_folder(tmp_path):
    for code in (errno.ENOSPC, errno.EFBIG):
        error = user_error(OSError(code, "No space left on device", str(tmp_path / "out" / "x.json")))
        assert isinstance(error, NoSpaceError) and str(error).startswith(f"no space left on {tmp_path / 'out'};")


def test_a_read_only_folder_names_the_file():
    error = user_error(OSError(errno.EROFS, "Read-only file system", "/mnt/ro/x.json"))
    assert isinstance(error, WriteError) and str(error).startswith("/mnt/ro/x.json: cannot write")


def test_sqlite_conditions_name_the_store_and_others_are_left_alone(tmp_path):
    path = tmp_path / "runs.sqlite"
    assert isinstance(sqlite_user_error(sqlite3.OperationalError("database or disk is full"), path, "run store"),
                      NoSpaceError)
    readonly = sqlite_user_error(sqlite3.OperationalError("attempt to write a readonly database"), path, "run store")
    assert isinstance(readonly, WriteError) and str(path) in str(readonly)
    assert sqlite_user_error(sqlite3.OperationalError("no such table: x"), path, "run store") is None
    assert user_error(ValueError("a bug")) is None
