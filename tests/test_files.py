"""Atomic writes: the old file or the whole new one, never half, and no temporary files left."""

from __future__ import annotations

import os
import stat

import pytest

from incanon.files import atomic_writer, write_lines_atomic, write_text_atomic


def test_text_replaces_and_keeps_the_mode(tmp_path):
    target = tmp_path / "a" / "b.txt"
    write_text_atomic(target, "one\n")
    assert target.read_text() == "one\n" and stat.S_IMODE(target.stat().st_mode) == 0o644
    os.chmod(target, 0o600)
    assert write_text_atomic(target, "two\n") == target
    assert target.read_text() == "two\n" and stat.S_IMODE(target.stat().st_mode) == 0o600


def test_lines_are_streamed_and_counted(tmp_path):
    target = tmp_path / "x.jsonl"
    assert write_lines_atomic(target, (str(i) for i in range(3))) == 3
    assert target.read_text() == "0\n1\n2\n"


def test_a_failure_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "x.jsonl"
    target.write_text("old\n")

    def lines():
        yield "new"
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_lines_atomic(target, lines())
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.jsonl"]
    with pytest.raises(RuntimeError), atomic_writer(tmp_path / "new.txt") as stream:
        stream.write("partial")
        raise RuntimeError("boom")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.jsonl"]


def test_jsonl_objects_name_the_bad_line(tmp_path):
    from incanon.errors import InputError, NotFoundError
    from incanon.files import iter_jsonl_objects

    path = tmp_path / "x.jsonl"
    path.write_text('{"a": 1}\n\n{"b": 2}\n')
    assert list(iter_jsonl_objects(path)) == [("line 1", {"a": 1}), ("line 3", {"b": 2})]
    path.write_text('{"a": 1}\n[1, 2]\n')
    with pytest.raises(InputError, match="line 2.*expected a JSON object, found list|expected a JSON object, found list"):
        list(iter_jsonl_objects(path))
    path.write_text('{"a": 1}\n{oops\n')
    with pytest.raises(InputError, match="invalid JSON") as caught:
        list(iter_jsonl_objects(path))
    assert "line 2" in str(caught.value) and str(path) in str(caught.value)
    with pytest.raises(NotFoundError, match="claims file .* does not exist"):
        list(iter_jsonl_objects(tmp_path / "none.jsonl", "claims file"))
