"""Reading user files: files that are not what they seem are refused by name, never waited on."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from incanon.errors import InputError
from incanon.reading import check_file, check_folder, parse_json, read_json, read_text, walk_files
from incanon.jsonlines import iter_jsonl

pytestmark = pytest.mark.timeout(20)


def test_a_fifo_is_refused_by_name_without_opening_it(tmp_path):
    fifo = tmp_path / "items.json"
    os.mkfifo(fifo)
    for read in (read_json, read_text, lambda p: list(iter_jsonl(p))):
        with pytest.raises(InputError, match="items.json: file is a FIFO"):
            read(fifo)
    with pytest.raises(InputError, match="FIFO"):
        check_folder(fifo)


def test_a_symlink_loop_is_one_clear_error(tmp_path):
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    with pytest.raises(InputError, match="symlink loop"):
        read_text(tmp_path / "a")
    with pytest.raises(InputError, match="symlink loop"):
        check_file(tmp_path / "b")


def test_a_folder_walk_does_not_follow_links_and_is_bounded(tmp_path):
    data = tmp_path / "data"
    (data / "sub").mkdir(parents=True)
    (data / "sub" / "a.json").write_text("[]")
    (data / "up").symlink_to(tmp_path)  # a loop back above the folder
    (data / "root").symlink_to("/")
    assert walk_files(data) == [data / "sub" / "a.json"]
    (tmp_path / "everything").symlink_to("/")
    with pytest.raises(InputError, match="more than 50 files"):
        walk_files(tmp_path / "everything", max_entries=50)


def test_duplicate_keys_are_refused_naming_the_key_and_its_line():
    text = '[\n {"name": "a", "k": 1},\n {"name": "b",\n  "k": 2,\n  "k": 3}\n]'
    with pytest.raises(InputError, match=r'x.json \(line 5\): duplicate key "k"'):
        parse_json(text, "x.json")
    with pytest.raises(InputError, match=r'line 1.*duplicate key "id"'):
        parse_json('{"id": 1, "id": 1}', "x.json")
    assert parse_json('[{"k": 1}, {"k": 2}]', "x.json") == [{"k": 1}, {"k": 2}]


def test_a_lone_surrogate_is_refused_and_a_pair_is_text():
    with pytest.raises(InputError, match=r"line 2.*lone UTF-16 surrogate"):
        parse_json('{"a": "ok",\n "b": "x\\ud800y"}', "items.jsonl")
    with pytest.raises(InputError, match="surrogate"):
        parse_json('{"\\udc00": 1}', "items.jsonl")
    assert parse_json('"\\ud83d\\ude00"', "x") == "\U0001F600"


def test_a_nul_byte_in_text_is_refused_with_its_line(tmp_path):
    path = tmp_path / "script.md"
    path.write_bytes(b"## 1\nWren: hi\nMira: a\x00b\n")
    with pytest.raises(InputError, match=r"script.md \(line 3\): file holds a NUL byte"):
        read_text(path)
