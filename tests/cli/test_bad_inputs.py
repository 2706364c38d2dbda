"""The bad-input corpus: every command that reads a file, given every kind of bad file.

Each case must end with exit code 2, exactly one line on stderr that names the file, no
traceback, and nothing created or changed (in the scratch folder or in INCANON_HOME), within a
time limit (a command that blocks on a FIFO or walks the whole filesystem fails, not hangs).

The second round (files that are not what they seem): a FIFO, a symlink loop, a symlink to
``/``, duplicate keys, a lone surrogate escape, a NUL byte in text. The machine under the user
(a read-only store or folder, a full disk or a file size limit) comes next.

The third round, at the end: a position of thousands of digits, a ``--log-file`` that is a
folder, empty, a FIFO or ``/dev/full``, a card whose name holds terminal escapes, a read-only
canon store, a lorebook of more entries than a card may hold, a dead symlink in a chapter folder,
an argument that is not UTF-8.
The serve cases of the round are in ``tests/serve/test_serve_hostile.py``; the corpus hunts for
more by itself in ``tests/cli/test_bad_input_properties.py`` and
``tests/serve/test_serve_properties.py`` (Hypothesis).
"""

from __future__ import annotations

import errno
import io
import json
import logging
import os
import pickle
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from incanon.bench.timechara import TimeCharaItem
from incanon.canon import CanonStore
from incanon.runs import RunConfig, RunStore
from incanon.testing.cli import run_main
from incanon.testing.worlds import mini_world

# -- the bad files --------------------------------------------------------------------------

TEN_MB = 10 << 20

JSON_KINDS: dict[str, bytes] = {
    "empty": b"",
    "truncated": b'{"work": {"id": "x", "title": "T"}, "characters": [{"name": "A"',
    "wrong-schema": b'{"unexpected": [1, 2, 3]}',
    "non-utf8": b'{"work": "\xff\xfe\xfa caf\xe9"}\n',
    "deep-nesting": b"[" * 100_000 + b"]" * 100_000,
    "huge-integer": b'{"n": 1' + b"0" * 100_000 + b"}",
    "nan": b'{"n": NaN}',
    "infinity": b'[{"n": -Infinity}]',
    "pickle": pickle.dumps({"work": {"id": "x"}}, protocol=4),
    "ten-mb-line": b'{"title": "' + b"x" * TEN_MB + b'"}\n',
    "duplicate-key": b'{"work": {"id": "x", "title": "T", "id": "y"}, "characters": []}\n',
    "lone-surrogate": b'{"work": {"id": "x", "title": "\\ud800"}, "characters": []}\n',
}
TEXT_KINDS: dict[str, bytes] = {
    "empty": b"",
    "non-utf8": b"## 1187-03-22\nWren: caf\xe9 \xff\xfe\n",
    "pickle": pickle.dumps(["Wren: hello"], protocol=4),
    "nul-byte": b"## 1187-03-22\nWren: the lamp is lit\nMira: ca\x00fe\n",
}
#: A NUL inside an otherwise valid line of the format the command reads.
NUL_LINES: dict[str, bytes] = {
    "sharp claims --conceptnet": b"/a/[/r/IsA/,/c/en/cat/,/c/en/animal/]\t/r/IsA\t/c/en/ca\x00t\t/c/en/animal\t"
                                 b'{"weight": 1.0}\n',
}
PATH_KINDS = ("directory", "missing", "fifo", "symlink-loop", "link-to-root")
#: Seconds a case may take: a command blocked on a FIFO or walking ``/`` fails instead of hanging.
CASE_TIMEOUT = 60
STORE_KINDS = ("empty", "not-sqlite", "garbage-sqlite", "truncated", "foreign-sqlite", "directory", "fifo")

SCRIPTED = "scripted:{rules}"


def _write_bad(tmp: Path, kind: str, data: bytes | None, suffix: str) -> Path:
    path = tmp / f"bad-{kind}{suffix}"
    if kind == "directory":
        path.mkdir()
    elif kind == "missing":
        pass
    elif kind == "fifo":
        os.mkfifo(path)  # opening it for reading would block until someone writes
    elif kind == "symlink-loop":
        other = tmp / f"bad-{kind}-other{suffix}"
        path.symlink_to(other)
        other.symlink_to(path)
    elif kind == "link-to-root":
        path.symlink_to("/")
    else:
        path.write_bytes(data or b"")
    return path


def _real_run_store(path: Path) -> None:
    with RunStore(path) as store:
        info = store.create_or_resume(RunConfig(benchmark="demo", params={"pad": "x" * 20_000}))
        store.finish(info.id, "finished")
    with sqlite3.connect(path) as db:  # fold the WAL in, so the main file holds everything
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def _write_bad_store(tmp: Path, kind: str, name: str = "runs.sqlite") -> Path:
    path = tmp / f"bad-store-{kind}" / name
    path.parent.mkdir()
    if kind == "directory":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "not-sqlite":
        path.write_text("this is a note, not a database\n")
    elif kind == "garbage-sqlite":
        path.write_bytes(b"SQLite format 3\x00" + os.urandom(4096 * 3))
    elif kind == "truncated":
        _real_run_store(path)
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 3])
        for extra in (path.with_name(name + "-wal"), path.with_name(name + "-shm")):
            extra.unlink(missing_ok=True)
    elif kind == "foreign-sqlite":
        with sqlite3.connect(path) as db:
            db.execute("CREATE TABLE recipes (name TEXT)")
            db.execute("INSERT INTO recipes VALUES ('soup')")
    return path


# -- the commands ---------------------------------------------------------------------------

Argv = Callable[[Path, Path], list[str]]
"""(bad file, scratch folder) -> arguments after ``incanon``."""

JSON_COMMANDS: dict[str, Argv] = {
    "canon import": lambda bad, tmp: ["canon", "import", str(bad), "--store", str(tmp / "new-store")],
    "timechara eval --items": lambda bad, tmp: [
        "timechara", "eval", "--items", str(bad), "--model", SCRIPTED, "--judge", SCRIPTED,
        "--runs", str(tmp / "new-runs.sqlite")],
    "timechara rescore": lambda bad, tmp: ["timechara", "rescore", str(bad)],
    "sharp rescore": lambda bad, tmp: ["sharp", "rescore", str(bad)],
    "rolerag eval --questions": lambda bad, tmp: [
        "rolerag", "eval", "--store", str(tmp / "canon"), "--questions", str(bad), "--model", SCRIPTED,
        "--judge", SCRIPTED, "--runs", str(tmp / "new-runs.sqlite")],
    "coser rescore": lambda bad, tmp: ["coser", "rescore", str(bad)],
    "coser sample": lambda bad, tmp: ["coser", "sample", str(bad), "--out", str(tmp / "new-test.json")],
    "dialsim ingest --published": lambda bad, tmp: [
        "dialsim", "ingest", "--published", str(bad), "--store", str(tmp / "new-store")],
    "dialsim rescore": lambda bad, tmp: ["dialsim", "rescore", str(bad)],
    "timechara eval --prices": lambda bad, tmp: [
        "timechara", "eval", "--items", str(tmp / "items.jsonl"), "--model", SCRIPTED, "--judge", SCRIPTED,
        "--prices", str(bad), "--max-cost", "1", "--runs", str(tmp / "new-runs.sqlite")],
}
TEXT_COMMANDS: dict[str, Argv] = {
    "dialsim ingest SCRIPT": lambda bad, tmp: ["dialsim", "ingest", str(bad), "--store", str(tmp / "new-store")],
    "graph build CORPUS": lambda bad, tmp: [
        "graph", "build", str(bad), "--store", str(tmp / "new-store"), "--work", "w", "--helper", SCRIPTED],
    "sharp claims --conceptnet": lambda bad, tmp: [
        "sharp", "claims", "--conceptnet", str(bad), "--out", str(tmp / "new-claims.jsonl")],
}
STORE_COMMANDS: dict[str, Argv] = {
    "runs list": lambda bad, tmp: ["runs", "list", "--runs", str(bad)],
    "runs show": lambda bad, tmp: ["runs", "show", "demo", "--runs", str(bad)],
    "runs export": lambda bad, tmp: ["runs", "export", "demo", "--runs", str(bad), "--out", str(tmp / "new.jsonl")],
    "report": lambda bad, tmp: ["report", "demo", "--runs", str(bad), "--md", str(tmp / "new.md")],
    "timechara report": lambda bad, tmp: ["timechara", "report", "demo", "--runs", str(bad)],
    "cache stats": lambda bad, tmp: ["cache", "stats", "--cache", str(bad)],
    "timechara eval (resume into a damaged store)": lambda bad, tmp: [
        "timechara", "eval", "--items", str(tmp / "items.jsonl"), "--model", SCRIPTED, "--judge", SCRIPTED,
        "--runs", str(bad)],
}
CANON_STORE_COMMANDS: dict[str, Argv] = {
    "canon show": lambda bad, tmp: ["canon", "show", "--store", str(bad.parent)],
    "canon scope": lambda bad, tmp: ["canon", "scope", "--store", str(bad.parent), "--work", "w", "--character", "A", "--at", "1"],
    "canon export": lambda bad, tmp: ["canon", "export", "w", "--store", str(bad.parent), "--out", str(tmp / "new.json")],
}

#: A corpus file is a book file: read in any encoding (cp1252 here, said on stderr), not refused
#: (tests/ingest/test_bookfile.py).
READ_IN_ANY_ENCODING = {("graph build CORPUS", "non-utf8")}

CASES = (
    [pytest.param(cmd, "file", kind, id=f"{cmd} / {kind}") for cmd in JSON_COMMANDS for kind in [*JSON_KINDS, *PATH_KINDS]]
    + [pytest.param(cmd, "text", kind, id=f"{cmd} / {kind}") for cmd in TEXT_COMMANDS for kind in [*TEXT_KINDS, *PATH_KINDS]
       if (cmd, kind) not in READ_IN_ANY_ENCODING]
    + [pytest.param(cmd, "store", kind, id=f"{cmd} / {kind}") for cmd in STORE_COMMANDS for kind in STORE_KINDS]
    + [pytest.param(cmd, "canon", kind, id=f"{cmd} / {kind}") for cmd in CANON_STORE_COMMANDS
       for kind in STORE_KINDS if kind != "directory"]
)


def _snapshot(*roots: Path) -> dict[str, tuple[int, int]]:
    seen = {}
    for root in roots:
        for folder, dirs, files in os.walk(root):
            for name in dirs + files:
                path = Path(folder) / name
                stat = path.lstat()
                # Files by size and time; folders by existence (SQLite may create and remove its
                # -shm file while finding the damage, which touches the folder's mtime only).
                seen[str(path)] = (stat.st_size, stat.st_mtime_ns) if path.is_file() else (-1, 0)
    return seen


@pytest.fixture
def scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("INCANON_HOME", str(home))
    rules = tmp_path / "rules.json"
    rules.write_text('{"rules": [], "default": "ok"}', encoding="utf-8")
    item = TimeCharaItem(id="i1", series="lanterns", question_generation="fact_structured", data_type="future",
                         question="Q?", character="A", character_period="1", temporal_label="L", spatial_label="-")
    (tmp_path / "items.jsonl").write_text(json.dumps(item.row()) + "\n", encoding="utf-8")
    with CanonStore.open(tmp_path / "canon") as store:
        store.import_world(mini_world())
    return tmp_path


def _run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = run_main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.timeout(CASE_TIMEOUT)
@pytest.mark.parametrize(("command", "family", "kind"), CASES)
def test_bad_input_is_one_line_exit_2_and_leaves_no_trace(scratch, capsys, command, family, kind):
    rules = scratch / "rules.json"
    if family == "file":
        bad = _write_bad(scratch, kind, JSON_KINDS.get(kind), ".jsonl" if "questions" in command else ".json")
        argv = JSON_COMMANDS[command](bad, scratch)
    elif family == "text":
        data = NUL_LINES.get(command, TEXT_KINDS.get(kind)) if kind == "nul-byte" else TEXT_KINDS.get(kind)
        bad = _write_bad(scratch, kind, data, ".txt" if "graph" in command else ".md")
        argv = TEXT_COMMANDS[command](bad, scratch)
    elif family == "store":
        bad = _write_bad_store(scratch, kind)
        argv = STORE_COMMANDS[command](bad, scratch)
    else:
        bad = _write_bad_store(scratch, kind, name="canon.sqlite")
        argv = CANON_STORE_COMMANDS[command](bad, scratch)
    argv = [a.replace("{rules}", str(rules)) for a in argv]
    before = _snapshot(scratch)

    code, out, err = _run_cli(argv, capsys)

    lines = err.strip().splitlines()
    assert "Traceback" not in err
    assert code == 2, f"exit {code}; stderr: {err[:400]}"
    assert len(lines) == 1, f"expected one line on stderr, got {len(lines)}: {err[:400]}"
    assert bad.name in lines[0] or str(bad) in lines[0], f"the message does not name {bad.name}: {lines[0][:300]}"
    assert len(lines[0]) < 2_500, "the message echoes the input"
    assert _snapshot(scratch) == before, "the command created or changed files"


# -- the machine under the user: read-only stores and folders, a full disk ------------------

REPO = Path(__file__).resolve().parents[2]
TIMECHARA = ["timechara", "eval", "--dataset", str(REPO / "examples/timechara/published/validation.json"),
             "--personalities", str(REPO / "examples/timechara/personality"),
             "--model", f"scripted:{REPO / 'examples/timechara/agent.json'}",
             "--judge", f"scripted:{REPO / 'examples/timechara/judge.json'}", "--method", "zero-shot"]


def _make_read_only(folder: Path) -> Callable[[], None]:
    """Make ``folder`` and what it holds read-only; returns the undo. Permissions do not stop
    root, so as root the folder becomes a read-only tmpfs holding a copy (or the test skips)."""
    import shutil
    import subprocess

    if os.geteuid() != 0:
        paths = [folder, *folder.rglob("*")]
        for path in paths:
            path.chmod(0o555 if path.is_dir() else 0o444)
        return lambda: [p.chmod(0o755 if p.is_dir() else 0o644) for p in paths]  # type: ignore[func-returns-value]
    saved = folder.with_name(folder.name + ".saved")
    shutil.copytree(folder, saved)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(folder)], capture_output=True).returncode:
        shutil.rmtree(saved)
        pytest.skip("as root, a read-only folder needs a tmpfs mount, which is not allowed here")
    shutil.copytree(saved, folder, dirs_exist_ok=True)
    shutil.rmtree(saved)
    subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True)
    # Lazy: stores the in-process commands opened may still hold files there.
    return lambda: subprocess.run(["umount", "-l", str(folder)], check=True)  # type: ignore[return-value]


@pytest.fixture
def read_only_runs(scratch: Path, capsys: pytest.CaptureFixture[str]):
    """A run store with one finished TimeChara run, in a read-only folder."""
    folder = scratch / "shelf"
    folder.mkdir()
    code, _, err = _run_cli([*TIMECHARA, "--runs", str(folder / "runs.sqlite")], capsys)
    assert code == 0, err[-400:]
    undo = _make_read_only(folder)
    yield folder / "runs.sqlite"
    undo()


READING: dict[str, Argv] = {
    "runs list": lambda store, tmp: ["runs", "list", "--runs", str(store)],
    "runs show": lambda store, tmp: ["runs", "show", "timechara", "--runs", str(store)],
    "runs export": lambda store, tmp: ["runs", "export", "timechara", "--runs", str(store), "--out", str(tmp / "out.jsonl")],
    "report": lambda store, tmp: ["report", "timechara", "--runs", str(store)],
    "timechara report": lambda store, tmp: ["timechara", "report", "timechara", "--runs", str(store)],
}


@pytest.mark.timeout(CASE_TIMEOUT)
@pytest.mark.parametrize("command", READING)
def test_reading_commands_work_on_a_read_only_store(read_only_runs, scratch, capsys, command):
    before = _snapshot(read_only_runs.parent)
    code, out, err = _run_cli(READING[command](read_only_runs, scratch), capsys)
    assert "Traceback" not in err
    assert code == 0, err[-400:]
    assert out.strip() or "wrote" in err
    assert _snapshot(read_only_runs.parent) == before


WRITING: dict[str, Argv] = {
    "timechara eval into a read-only store": lambda store, tmp: [*TIMECHARA, "--runs", str(store), "--fresh"],
    "timechara eval into a read-only folder": lambda store, tmp: [*TIMECHARA, "--runs", str(store.parent / "new.sqlite")],
    "canon import into a read-only folder": lambda store, tmp: [
        "canon", "import", str(REPO / "examples/world.json"), "--store", str(store.parent / "new-canon")],
    "runs export into a read-only folder": lambda store, tmp: [
        "runs", "export", "timechara", "--runs", str(store), "--out", str(store.parent / "out.jsonl")],
}


@pytest.mark.timeout(CASE_TIMEOUT)
@pytest.mark.parametrize("command", WRITING)
def test_writing_commands_on_a_read_only_store_or_folder_are_one_line(read_only_runs, scratch, capsys, command):
    shelf = read_only_runs.parent
    before, entries = _snapshot(shelf), sorted(os.listdir(scratch))
    code, _, err = _run_cli(WRITING[command](read_only_runs, scratch), capsys)
    lines = err.strip().splitlines()
    assert "Traceback" not in err
    assert code == 2, err[-400:]
    assert len(lines) == 1 and str(shelf) in lines[0], err[-400:]
    assert _snapshot(shelf) == before and sorted(os.listdir(scratch)) == entries


def _limited(argv: list[str], home: Path, limit_kib: int) -> tuple[int, str]:
    """``incanon ARGV`` in a process that may write files of at most ``limit_kib`` KiB (as
    ``ulimit -f``; Python ignores SIGXFSZ, so writes past it fail with EFBIG)."""
    import resource
    import subprocess

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit_kib << 10, limit_kib << 10))

    done = subprocess.run([sys.executable, "-m", "incanon", *argv], capture_output=True, text=True, cwd=REPO,
                          env={**os.environ, "INCANON_HOME": str(home)}, preexec_fn=limit, timeout=CASE_TIMEOUT)
    return done.returncode, done.stderr


FULL_DISK: dict[str, Argv] = {
    "canon import": lambda bad, tmp: ["canon", "import", str(REPO / "examples/world.json"), "--store", str(tmp / "new-canon")],
    "timechara eval": lambda bad, tmp: [*TIMECHARA, "--runs", str(tmp / "new-runs" / "runs.sqlite")],
    "dialsim ingest": lambda bad, tmp: ["dialsim", "ingest", "--sample", "--store", str(tmp / "new-dialsim")],
}


@pytest.fixture
def small_disk(tmp_path: Path):
    """A 64 KiB tmpfs (root with mount rights only; the test skips elsewhere)."""
    import subprocess

    disk = tmp_path / "disk"
    disk.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(disk)],
                                           capture_output=True).returncode:
        pytest.skip("mounting a small tmpfs needs root with mount rights")
    yield disk
    subprocess.run(["umount", "-l", str(disk)], check=True)


@pytest.mark.timeout(CASE_TIMEOUT)
@pytest.mark.parametrize("command", FULL_DISK)
def test_a_full_small_disk_says_no_space_and_leaves_nothing_new(small_disk, command):
    before = _snapshot(small_disk)
    code, err = _limited(FULL_DISK[command](small_disk, small_disk), small_disk / "new-home", 1 << 20)
    errors = [line for line in err.strip().splitlines() if line.startswith("error:")]
    assert "Traceback" not in err
    assert code == 2, err[-600:]
    assert len(errors) == 1 and "no space left on " + str(small_disk) in errors[0], err[-600:]
    assert _snapshot(small_disk) == before, "a new folder, store or cache was left behind"


@pytest.mark.timeout(CASE_TIMEOUT)
@pytest.mark.parametrize("command", FULL_DISK)
def test_a_full_disk_says_no_space_and_leaves_nothing_new(tmp_path, command):
    home = tmp_path / "new-home"
    before = _snapshot(tmp_path)
    code, err = _limited(FULL_DISK[command](tmp_path, tmp_path), home, 64)
    errors = [line for line in err.strip().splitlines() if line.startswith("error:")]
    assert "Traceback" not in err
    assert code == 2, err[-600:]
    # One error line (a run's own summary line may come before it).
    assert len(errors) == 1 and "no space left on " + str(tmp_path) in errors[0], err[-600:]
    after = _snapshot(tmp_path)
    assert all(after.get(p) == v for p, v in before.items()), "a file that was there changed"
    left = {p for p in after if p not in before}
    # A response cache that holds an answer is kept: it is what makes the rerun free (#37).
    cache = home / "cache.sqlite"
    if str(cache) in left:
        import sqlite3

        with sqlite3.connect(cache) as conn:
            assert conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0] > 0, "an empty cache was left"
        left -= {str(cache), str(home)}
    assert not left, f"a new folder, store or cache was left behind: {sorted(left)}"


@pytest.mark.timeout(CASE_TIMEOUT)
def test_a_run_cut_short_by_a_full_disk_keeps_its_finished_samples(tmp_path):
    runs = tmp_path / "runs.sqlite"
    code, err = _limited([*TIMECHARA, "--runs", str(runs)], tmp_path / "home", 400)
    assert code == 2 and "no space left on" in err and "Traceback" not in err, err[-600:]
    with RunStore(runs, read_only=True) as store:
        (run,) = store.runs()
        kept = sum(1 for s in store.samples(run.id) if s.status == "ok")
    assert 0 < kept < 20
    code, err = _limited([*TIMECHARA, "--runs", str(runs)], tmp_path / "home", 1 << 20)
    assert code == 0, err[-600:]
    assert f"{kept} already done" in err


@pytest.mark.timeout(CASE_TIMEOUT)
def test_bad_lines_of_a_jsonl_input_are_refused_or_with_the_option_skipped_and_counted(scratch, capsys):
    rows = json.loads((REPO / "examples/timechara/published/validation.json").read_text(encoding="utf-8"))
    rows = rows["validation"]
    lines = [json.dumps(row).encode() for row in rows]
    lines[3:3] = [b'{"id": "broken", ', b"\xff\xfe not UTF-8"]  # lines 4 and 5
    items = scratch / "items.jsonl"
    items.write_bytes(b"\n".join(lines) + b"\n")
    argv = [a if a != str(REPO / "examples/timechara/published/validation.json") else str(items) for a in TIMECHARA]
    code, _, err = _run_cli([*argv, "--runs", str(scratch / "refused.sqlite")], capsys)
    assert code == 2 and "items.jsonl" in err and "line 4" in err, err[-400:]
    code, out, err = _run_cli([*argv, "--runs", str(scratch / "runs.sqlite"), "--skip-bad-lines"], capsys)
    assert code == 0, err[-400:]
    assert f"skipped 2 bad lines (not UTF-8 or not JSON): {items} (2: line 4, 5)" in " ".join(err.split())
    assert f"{len(rows)} judged items" in out


# -- the third round: tracebacks, hangs, output that can hurt, silent or wrong ---------------

#: A position of more digits than Python turns into an int (4,300): it must be refused as too long.
LONG_POSITION = "1-" + "9" * 4301
#: A name that recolours the terminal, breaks the line and clears the screen (C1 CSI).
HOSTILE_NAME = "Evil\x1b[31mRed\nLine\x9b2J"


def _one_line_error(code: int, err: str) -> str:
    """The one error line of a refused command (asserted: exit 2, no traceback)."""
    lines = err.strip().splitlines()
    assert "Traceback" not in err
    assert code == 2, f"exit {code}; stderr: {err[:400]}"
    assert len(lines) == 1, f"expected one line on stderr, got {len(lines)}: {err[:400]}"
    return lines[0]


POSITION_COMMANDS: dict[str, Argv] = {
    "canon scope --at": lambda tmp, rules: ["canon", "scope", "--store", str(tmp / "canon"), "--work", "lanterns",
                                            "--character", "Wren", "--at", LONG_POSITION],
    "chat --at": lambda tmp, rules: ["chat", "--store", str(tmp / "canon"), "--work", "lanterns", "--character",
                                     "Wren", "--at", LONG_POSITION, "--model", f"scripted:{rules}", "--no-cache"],
}


@pytest.mark.timeout(CASE_TIMEOUT)
@pytest.mark.parametrize("command", POSITION_COMMANDS)
def test_a_position_of_thousands_of_digits_is_too_long_not_a_traceback(scratch, capsys, monkeypatch, command):
    monkeypatch.setattr("sys.stdin", open(os.devnull))  # chat reads its lines from stdin
    code, _, err = _run_cli(POSITION_COMMANDS[command](scratch, scratch / "rules.json"), capsys)
    line = _one_line_error(code, err)
    assert "too long" in line and "story position" in line, line
    assert "9" * 100 not in line and len(line) < 300, "the message echoes the position"


def _log_file_kind(tmp: Path, kind: str) -> str:
    if kind == "directory":
        (tmp / "logs").mkdir()
        return str(tmp / "logs")
    if kind == "empty":
        return ""
    if kind == "fifo":
        os.mkfifo(tmp / "log.fifo")  # opening it for writing waits for a reader that never comes
        return str(tmp / "log.fifo")
    return "/dev/full"  # every write fails with "no space left on device"


@pytest.mark.timeout(CASE_TIMEOUT)
@pytest.mark.parametrize("kind", ["directory", "empty", "fifo", "dev-full"])
def test_a_log_file_that_cannot_be_one_is_one_line_and_exit_2(scratch, capsys, kind):
    if kind == "dev-full" and not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    log_file = _log_file_kind(scratch, kind)
    code, out, err = _run_cli(["canon", "show", "--store", str(scratch / "canon"), "--log-file", log_file], capsys)
    line = _one_line_error(code, err)
    assert "--log-file" in line or "log file" in line, line
    if kind == "dev-full":
        assert "/dev/full" in line and "no space" in line.lower(), line
    assert not out.strip(), "the command ran without its log"


class _FullDisk(io.StringIO):
    """A stream on a full disk: every write fails with ENOSPC."""

    def write(self, text: str) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")


def test_a_log_file_write_that_fails_later_is_said_once_and_fails_the_command(tmp_path, capsys):
    from incanon.logs import configure, log_file_error

    log = tmp_path / "run.log"
    configure(0, log)
    try:
        handler = next(h for h in logging.getLogger("incanon").handlers if getattr(h, "path", None) == log)
        handler.stream = _FullDisk()  # the next write fails, as on a disk that filled up meanwhile
        logging.getLogger("incanon.test").warning("one")
        logging.getLogger("incanon.test").warning("two")
        said = capsys.readouterr().err
        assert said.count("cannot write the log file") == 1 and str(log) in said
        assert log_file_error() is not None
    finally:
        configure(0)


def _card(path: Path, name: str, entries: int = 1) -> Path:
    book = [{"keys": [f"key {i}"], "content": f"Fact {i}.", "enabled": True, "insertion_order": i}
            for i in range(entries)]
    card = {"spec": "chara_card_v2", "spec_version": "2.0",
            "data": {"name": name, "description": "A \x1b]52;c;aGk=\x07 visitor.", "personality": "", "scenario": "",
                     "first_mes": "Hello\x1b[2J", "mes_example": "", "character_book": {"entries": book}}}
    path.write_text(json.dumps(card), encoding="utf-8")
    return path


def test_a_card_name_with_terminal_escapes_is_printed_escaped_everywhere(scratch, capsys):
    card = _card(scratch / "evil.json", HOSTILE_NAME)
    store = str(scratch / "cards")
    outputs = []
    for argv in (["canon", "card", "import", str(card), "--store", store, "--work", "evil"],
                 ["canon", "show", "--store", store], ["canon", "show", "evil", "--store", store],
                 ["canon", "scope", "--store", store, "--work", "evil", "--at", "1-1-1"],
                 ["canon", "show", "nope\x1b[1m", "--store", store]):
        code, out, err = _run_cli(argv, capsys)
        outputs.append(out + err)
        assert "Traceback" not in err
    printed = "".join(outputs)
    assert "\x1b" not in printed and "\x9b" not in printed and "\x07" not in printed
    assert "Evil\\x1b[31mRed\\nLine\\x9b2J" in printed  # shown, escaped, on one line


def test_a_read_only_canon_store_can_be_shown_scoped_and_exported(scratch, capsys):
    folder = scratch / "canon"
    undo = _make_read_only(folder)
    try:
        before = _snapshot(folder)
        for argv in (["canon", "show", "--store", str(folder)], ["canon", "show", "lanterns", "--store", str(folder)],
                     ["canon", "scope", "--store", str(folder), "--work", "lanterns", "--character", "Wren",
                      "--at", "1-3"],
                     ["canon", "export", "lanterns", "--store", str(folder), "--out", str(scratch / "w.json")]):
            code, out, err = _run_cli(argv, capsys)
            assert "Traceback" not in err
            assert code == 0, f"{argv[:2]}: {err[-400:]}"
            assert out.strip() or "wrote" in err
        assert _snapshot(folder) == before
    finally:
        undo()


@pytest.mark.timeout(CASE_TIMEOUT)
def test_a_lorebook_over_the_cap_is_refused_naming_count_and_cap(scratch, capsys):
    from incanon.cards.files import MAX_BOOK_ENTRIES

    card = _card(scratch / "huge.json", "Big", entries=MAX_BOOK_ENTRIES + 1)
    code, _, err = _run_cli(["canon", "card", "import", str(card), "--store", str(scratch / "new-cards"),
                             "--work", "big"], capsys)
    line = _one_line_error(code, err)
    assert f"{MAX_BOOK_ENTRIES + 1:,}" in line and f"{MAX_BOOK_ENTRIES:,}" in line and "huge.json" in line, line
    assert not (scratch / "new-cards").exists()


@pytest.mark.timeout(CASE_TIMEOUT)
def test_a_big_lorebook_import_says_what_it_is_doing(scratch, capsys):
    from incanon.cards.importer import BIG_BOOK

    card = _card(scratch / "big.json", "Big", entries=BIG_BOOK)
    code, out, err = _run_cli(["canon", "card", "import", str(card), "--store", str(scratch / "cards"),
                               "--work", "big"], capsys)
    assert code == 0, err[-400:]
    assert f"{BIG_BOOK:,} lorebook entries" in err and "writing" in err and "to the canon store" in err


@pytest.mark.timeout(CASE_TIMEOUT)
@pytest.mark.parametrize("kind", ["symlink-loop", "broken-link"])
def test_a_dead_symlink_in_a_chapter_folder_is_named_not_skipped(scratch, capsys, kind):
    folder = scratch / "book"
    folder.mkdir()
    (folder / "ch1.txt").write_text("Chapter 1\n\nThe lamps were lit.\n", encoding="utf-8")
    dead = folder / "ch2.txt"
    if kind == "symlink-loop":
        dead.symlink_to(folder / "ch3.txt")
        (folder / "ch3.txt").symlink_to(dead)
    else:
        dead.symlink_to(folder / "gone.txt")
    code, _, err = _run_cli(["canon", "build", str(folder), "--store", str(scratch / "new-store"), "--dry-run",
                             "--helper", f"scripted:{scratch / 'rules.json'}"], capsys)
    line = _one_line_error(code, err)
    assert "symlink" in line and ("ch2.txt" in line or "ch3.txt" in line), line


@pytest.mark.parametrize("argument", ["caf\udce9", "\udcff\udcfe"])
def test_an_argument_that_is_not_utf8_is_one_line_not_a_traceback(scratch, capsys, argument):
    # Found by the property tests: the shell passes bytes that are not UTF-8 as lone surrogates,
    # and SQLite cannot encode them.
    code, _, err = _run_cli(["canon", "show", argument, "--store", str(scratch / "canon")], capsys)
    line = _one_line_error(code, err)
    assert "not UTF-8" in line and "\\udc" in line, line
