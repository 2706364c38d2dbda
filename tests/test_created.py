"""A failed command removes what it created, unless it now holds work worth keeping."""

from __future__ import annotations

import sqlite3

from incanon import created


def test_the_topmost_missing_folder_is_noted_and_removed(tmp_path):
    created.reset()
    target = tmp_path / "a" / "b" / "runs.sqlite"
    assert created.track_new(target) == tmp_path / "a"
    target.parent.mkdir(parents=True)
    target.write_bytes(b"")
    assert created.discard_new() == [tmp_path / "a"]
    assert not (tmp_path / "a").exists()


def test_an_existing_path_is_never_noted(tmp_path):
    created.reset()
    (tmp_path / "kept.sqlite").write_bytes(b"x")
    assert created.track_new(tmp_path / "kept.sqlite") is None
    assert created.discard_new() == [] and (tmp_path / "kept.sqlite").exists()


def test_a_store_holding_rows_is_kept_and_an_empty_one_goes_with_its_side_files(tmp_path):
    created.reset()
    full, empty = tmp_path / "full.sqlite", tmp_path / "empty.sqlite"
    created.track_new(full, keep=created.holds_rows(full, "samples"))
    created.track_new(empty, keep=created.holds_rows(empty, "samples"))
    for path, rows in ((full, 1), (empty, 0)):
        with sqlite3.connect(path) as db:
            db.execute("CREATE TABLE samples (x)")
            db.executemany("INSERT INTO samples VALUES (?)", [(i,) for i in range(rows)])
    (tmp_path / "empty.sqlite-wal").write_bytes(b"")
    assert created.discard_new() == [empty]
    assert full.exists() and not empty.exists() and not (tmp_path / "empty.sqlite-wal").exists()
