"""The README and every guide run as written.

Every ```console block of README.md and docs/*.md is run, in order, in one scratch folder per
file (with the repository's ``examples/`` and ``benchmarks/`` linked in, and an empty ``INCANON_HOME``): each ``$ ``
line is a command (backslash continuations joined) that must exit 0, and the lines shown under
it must appear in what it printed (whitespace aside; lines with ``...`` or ``…`` are elisions, and
progress lines with a rate in ``it/s`` vary from run to run).
An HTML comment right before a block tunes it (words may be combined: ``slow no-output``):

- ``<!-- docs-test: slow -->``: the file's test is marked slow (it still runs in CI);
- ``<!-- docs-test: skip REASON -->``: not run (a real API key or server is needed), REASON said;
- ``<!-- docs-test: exit N -->``: the block's commands are expected to exit with N;
- ``<!-- docs-test: no-output -->``: only exit codes are checked.

```bash blocks are illustrations (placeholders such as ``MODEL``), not run.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_BLOCK = re.compile(r"(?:<!--\s*docs-test:\s*(?P<note>[^>]*?)\s*-->\s*\n)?```console\n(?P<body>.*?)```", re.S)


@dataclass
class Command:
    line: str
    shown: list[str] = field(default_factory=list)


@dataclass
class Block:
    where: str
    commands: list[Command]
    note: str = ""


def _blocks(path: Path) -> list[Block]:
    text = path.read_text(encoding="utf-8")
    found = []
    for match in _BLOCK.finditer(text):
        line_no = text.count("\n", 0, match.start()) + 1
        commands: list[Command] = []
        pending = ""
        for raw in match.group("body").splitlines():
            if pending:
                pending += " " + raw.strip()
                if not pending.endswith("\\"):
                    commands.append(Command(pending))
                    pending = ""
                else:
                    pending = pending[:-1].rstrip()
                continue
            if raw.startswith("$ "):
                pending = raw[2:].strip()
                if pending.endswith("\\"):
                    pending = pending[:-1].rstrip()
                else:
                    commands.append(Command(pending))
                    pending = ""
            elif commands and raw.strip():
                commands[-1].shown.append(raw)
        found.append(Block(f"{path.name}:{line_no}", commands, (match.group("note") or "").strip()))
    return found


def _params() -> list:
    params = []
    for path in DOCS:
        blocks = _blocks(path)
        if not blocks:
            continue
        marks = [pytest.mark.slow] if any("slow" in b.note.split() for b in blocks) else []
        params.append(pytest.param(path, id=path.relative_to(ROOT).as_posix(), marks=marks))
    return params


def _normal(text: str) -> str:
    return " ".join(text.split())


def _run(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    # The README calls the installed program by its path in the virtualenv; it is the same program.
    command = re.sub(r"(^|\s)\.venv/bin/incanon\b", r"\1incanon", command)
    command = re.sub(r"(^|\s)\.venv/bin/python\b", rf"\1{sys.executable}", command)
    words = shlex.split(command)
    if words and words[0] == "incanon" and not any(c in command for c in "|><;&"):
        return subprocess.run([sys.executable, "-m", "incanon", *words[1:]], cwd=cwd, env=env,
                              capture_output=True, text=True, timeout=1800)
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=1800)


@pytest.mark.parametrize("doc", _params())
def test_guide_runs_as_written(doc: Path, tmp_path: Path) -> None:
    for shared in ("examples", "benchmarks"):
        (tmp_path / shared).symlink_to(ROOT / shared)
    bin_dir = Path(sys.executable).parent
    env = {**os.environ, "INCANON_HOME": str(tmp_path / "home"), "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    env.pop("INCANON_PROMPTS", None)
    # Wide enough that tables print one row per line, as the guides show them.
    env["COLUMNS"] = "200"
    for block in _blocks(doc):
        words = block.note.split()
        if words[:1] == ["skip"]:
            continue
        expected = int(words[words.index("exit") + 1]) if "exit" in words else 0
        for command in block.commands:
            res = _run(command.line, tmp_path, env)
            said = res.stdout + res.stderr
            assert res.returncode == expected, (
                f"{block.where}: `{command.line}` exited {res.returncode}, expected {expected}:\n{said[-3000:]}")
            if "no-output" in words:
                continue
            printed = _normal(said)
            for line in command.shown:
                if "..." in line or "…" in line or " it/s" in line:
                    continue  # elisions, and progress lines whose timings vary run to run
                assert _normal(line) in printed, (
                    f"{block.where}: `{command.line}` did not print the line the guide shows:\n  {line.strip()}\n"
                    f"it printed:\n{said[-3000:]}")
