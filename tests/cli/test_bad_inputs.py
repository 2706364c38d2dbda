"""The bad-input corpus: every command that reads a file, given every kind of bad file.

Each case must end with exit code 2, exactly one line on stderr that names the file, no
traceback, and nothing created or changed (in the scratch folder or in INCANON_HOME).
"""

from __future__ import annotations

import json
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
}
TEXT_KINDS: dict[str, bytes] = {
    "empty": b"",
    "non-utf8": b"## 1187-03-22\nWren: caf\xe9 \xff\xfe\n",
    "pickle": pickle.dumps(["Wren: hello"], protocol=4),
}
PATH_KINDS = ("directory", "missing")
STORE_KINDS = ("empty", "not-sqlite", "garbage-sqlite", "truncated", "foreign-sqlite", "directory")

SCRIPTED = "scripted:{rules}"


def _write_bad(tmp: Path, kind: str, data: bytes | None, suffix: str) -> Path:
    path = tmp / f"bad-{kind}{suffix}"
    if kind == "directory":
        path.mkdir()
    elif kind == "missing":
        pass
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

CASES = (
    [pytest.param(cmd, "file", kind, id=f"{cmd} / {kind}") for cmd in JSON_COMMANDS for kind in [*JSON_KINDS, *PATH_KINDS]]
    + [pytest.param(cmd, "text", kind, id=f"{cmd} / {kind}") for cmd in TEXT_COMMANDS for kind in [*TEXT_KINDS, *PATH_KINDS]]
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
    from incanon.cli.main import main

    old = sys.argv
    sys.argv = ["incanon", *argv]
    try:
        main()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    finally:
        sys.argv = old
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize(("command", "family", "kind"), CASES)
def test_bad_input_is_one_line_exit_2_and_leaves_no_trace(scratch, capsys, command, family, kind):
    rules = scratch / "rules.json"
    if family == "file":
        bad = _write_bad(scratch, kind, JSON_KINDS.get(kind), ".jsonl" if "questions" in command else ".json")
        argv = JSON_COMMANDS[command](bad, scratch)
    elif family == "text":
        bad = _write_bad(scratch, kind, TEXT_KINDS.get(kind), ".txt" if "graph" in command else ".md")
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
