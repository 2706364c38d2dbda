"""Atomic writes: the old file or the whole new one, never half, and no temporary files left; a
symlink keeps its link, a device or FIFO is written through, a folder or a full disk is one line."""

from __future__ import annotations

import os
import stat
import subprocess
import threading
import time
from pathlib import Path

import pytest

from incanon.errors import IncanonError
from incanon.files import (FileNoSpaceError, FileWriteError, atomic_writer, destination, write_bytes_atomic,
                           write_lines_atomic, write_text_atomic)


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


# --- what the path is: a link, a device, a FIFO, a folder, a full disk --------------------------




def _only(folder, *names):
    """No temporary file is left beside the target."""
    assert sorted(p.name for p in folder.iterdir()) == sorted(names)


def test_a_symlink_keeps_its_link_and_its_target_is_written(tmp_path):
    synced = tmp_path / "synced"
    synced.mkdir()
    (synced / "world.json").write_text("old\n")
    os.chmod(synced / "world.json", 0o600)
    link = tmp_path / "world.json"
    link.symlink_to(Path("synced") / "world.json")  # relative, as dotfile managers make them
    assert write_text_atomic(link, "new\n") == link
    assert link.is_symlink() and os.readlink(link) == os.path.join("synced", "world.json")
    assert (synced / "world.json").read_text() == "new\n"
    assert stat.S_IMODE((synced / "world.json").stat().st_mode) == 0o600
    _only(synced, "world.json")
    _only(tmp_path, "synced", "world.json")


def test_a_dangling_symlink_creates_the_file_it_names(tmp_path):
    (tmp_path / "synced").mkdir()
    link = tmp_path / "chat.json"
    link.symlink_to(tmp_path / "synced" / "chat.json")
    write_text_atomic(link, "{}\n")
    assert link.is_symlink() and (tmp_path / "synced" / "chat.json").read_text() == "{}\n"
    nowhere = tmp_path / "nowhere.json"
    nowhere.symlink_to(tmp_path / "missing-folder" / "x.json")
    with pytest.raises(FileWriteError, match="symlink to .*whose folder does not exist"):
        write_text_atomic(nowhere, "{}\n")
    assert nowhere.is_symlink() and not (tmp_path / "missing-folder").exists()


def test_a_symlink_loop_is_one_line(tmp_path):
    loop = tmp_path / "loop.json"
    loop.symlink_to(loop)
    with pytest.raises(FileWriteError, match="symlink loop"):
        write_text_atomic(loop, "x")
    assert loop.is_symlink()


def test_a_fifo_is_written_through_and_stays_a_fifo(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(FileWriteError, match="FIFO .*nothing reads"):  # never blocks
        write_text_atomic(fifo, "lost\n")
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    deadline = time.monotonic() + 10
    while True:  # the reader must have the FIFO open before the write, or the write is refused
        try:
            write_text_atomic(fifo, "through the pipe\n")
            break
        except FileWriteError:
            assert time.monotonic() < deadline
            time.sleep(0.02)
    reader.join(10)
    assert got == [b"through the pipe\n"]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    _only(tmp_path, "pipe")


def _char_device(path, minor):
    """A copy of /dev/null (minor 3) or /dev/full (minor 7) made with mknod, or a skip."""
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, minor))
        with open(path, "wb"):
            pass
    except PermissionError as exc:
        pytest.skip(f"cannot make or open a character device here (needs root and a mount without nodev): {exc}")
    except OSError as exc:
        pytest.skip(f"cannot make or open a character device here: {exc}")
    return path


def test_a_character_device_is_written_through_never_replaced(tmp_path):
    null = _char_device(tmp_path / "null", 3)
    write_text_atomic(null, "into the void\n")
    write_bytes_atomic(null, b"\x89PNG")
    assert stat.S_ISCHR(os.lstat(null).st_mode) and os.major(null.stat().st_rdev) == 1
    link = tmp_path / "save.json"  # --save save.json -> null, as /dev/stdout links to /proc/self/fd/1
    link.symlink_to(null)
    write_text_atomic(link, "{}\n")
    assert link.is_symlink() and stat.S_ISCHR(os.lstat(null).st_mode)
    _only(tmp_path, "null", "save.json")


def test_a_full_device_reports_no_space_not_success(tmp_path):
    full = _char_device(tmp_path / "full", 7)
    with pytest.raises(FileNoSpaceError, match="no space left") as caught:
        write_text_atomic(full, "x" * 10_000)
    assert isinstance(caught.value, IncanonError) and "\n" not in str(caught.value)
    assert stat.S_ISCHR(os.lstat(full).st_mode)


def test_the_real_dev_null_behind_a_symlink_stays_a_device(tmp_path):
    link = tmp_path / "out.json"
    link.symlink_to("/dev/null")
    write_text_atomic(link, "{}\n")
    assert link.is_symlink() and stat.S_ISCHR(os.stat("/dev/null").st_mode)
    _only(tmp_path, "out.json")


def test_a_directory_is_one_line_and_untouched(tmp_path):
    folder = tmp_path / "chats"
    folder.mkdir()
    (folder / "kept.json").write_text("mine")
    with pytest.raises(FileWriteError, match="is a directory, expected a file") as caught:
        write_text_atomic(folder, "{}\n")
    assert isinstance(caught.value, OSError) and isinstance(caught.value, IncanonError)
    _only(folder, "kept.json")
    _only(tmp_path, "chats")
    with pytest.raises(FileWriteError, match="not a folder"):
        write_text_atomic(folder / "kept.json" / "x.json", "{}\n")


def test_destination_checks_without_writing(tmp_path):
    (tmp_path / "d").mkdir()
    with pytest.raises(FileWriteError):
        destination(tmp_path / "d")
    assert destination(tmp_path / "new.json").path == tmp_path / "new.json"
    assert destination("/dev/null").through


@pytest.fixture
def tiny_disk(tmp_path):
    """A 64 KiB tmpfs, or a skip where mounting is not permitted."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here (needs root): {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def test_a_full_disk_keeps_the_previous_file_and_leaves_no_temporary(tiny_disk):
    target = tiny_disk / "world.json"
    target.write_text("previous\n")
    with pytest.raises(FileNoSpaceError, match=r"no space left to write .*world\.json.*previous file is kept") as caught:
        write_text_atomic(target, "x" * 200_000)
    assert caught.value.errno is None and "\n" not in str(caught.value)
    assert target.read_text() == "previous\n"
    _only(tiny_disk, "world.json")
    with pytest.raises(FileNoSpaceError, match="nothing was written"):
        write_text_atomic(tiny_disk / "new.json", "x" * 200_000)
    _only(tiny_disk, "world.json")
