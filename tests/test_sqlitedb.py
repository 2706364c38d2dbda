"""Guarded SQLite access shared by the stores: WAL switching and files other processes are creating."""

from __future__ import annotations

import sqlite3
import threading
import time

import pytest

from incanon.sqlitedb import DamagedStoreError, require_database, use_wal


def test_wal_switch_waits_for_a_writer_holding_the_database(tmp_path):
    path = tmp_path / "db.sqlite"
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN EXCLUSIVE")
    threading.Timer(0.3, lambda: holder.execute("COMMIT")).start()
    other = sqlite3.connect(path, isolation_level=None, timeout=0, check_same_thread=False)
    started = time.monotonic()
    use_wal(other, 5.0)
    assert other.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert time.monotonic() - started >= 0.2  # it waited for the lock instead of failing at once
    holder.close()
    other.close()


def test_wal_switch_gives_up_after_its_timeout(tmp_path):
    path = tmp_path / "db.sqlite"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN EXCLUSIVE")
    other = sqlite3.connect(path, isolation_level=None, timeout=0)
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        use_wal(other, 0.2)
    holder.execute("COMMIT")


def test_an_empty_file_gets_a_moment_to_become_a_database_then_is_refused(tmp_path):
    path = tmp_path / "new.sqlite"
    path.touch()
    threading.Timer(0.2, lambda: sqlite3.connect(path).execute("CREATE TABLE t (x)").connection.commit()).start()
    require_database(path, "run store", wait_s=5.0)  # another process created it meanwhile
    empty = tmp_path / "empty.sqlite"
    empty.touch()
    with pytest.raises(DamagedStoreError, match="empty file"):
        require_database(empty, "run store", wait_s=0.1)


def _open_close_open(tmp_path: Path) -> None:
    import subprocess
    import sys

    from incanon.canon.store import CanonStore
    from incanon.sample import sample_world

    first = CanonStore.open(tmp_path / "canon")
    first.import_world(sample_world())
    second = CanonStore.open(tmp_path / "canon")  # the check of a store this process holds open
    second.close()
    # Another process opens and closes the store: were the first connection's locks gone, it
    # would take the store for unused and remove the write-ahead log and shared memory under it.
    code = "import sys; from incanon.canon.store import CanonStore; s = CanonStore.open(sys.argv[1]); s.works(); s.close()"
    subprocess.run([sys.executable, "-c", code, str(tmp_path / "canon")], check=True, timeout=120)
    shm = [p.name for p in (tmp_path / "canon").iterdir() if p.name.endswith("-shm")]
    assert shm, "the shared memory of a store in use was removed by another process"
    assert [w.id for w in first.works()] == ["lanterns"] and len(first.characters("lanterns")) > 3
    first.close()


def test_a_store_open_in_this_process_keeps_its_locks_when_opened_again(tmp_path: Path) -> None:
    """Two sessions of one server on one store: the second open's file check must not drop the
    first connection's POSIX locks (closing any descriptor of the file would)."""
    _open_close_open(tmp_path)


def test_without_the_guard_the_locks_are_lost(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import incanon.sqlitedb as sqlitedb

    monkeypatch.setattr(sqlitedb, "in_use", lambda path: False)
    with pytest.raises(AssertionError, match="shared memory of a store in use was removed"):
        _open_close_open(tmp_path)
