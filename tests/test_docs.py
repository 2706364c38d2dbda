"""The README and every guide run as written.

Every ```console block of README.md and docs/*.md is run, in order, in one scratch folder per
file (with the repository's ``examples/`` and ``benchmarks/`` linked in, and an empty ``INCANON_HOME``): each ``$ ``
line is a command (backslash continuations joined) that must exit 0, and the lines shown under
it must appear in what it printed (whitespace aside; lines with ``...`` or ``…`` are elisions, and
progress lines with a rate in ``it/s`` vary from run to run, and a table's rule is as wide as the terminal).
An HTML comment right before a block tunes it (words may be combined: ``slow no-output``):

- ``<!-- docs-test: slow -->``: the file's test is marked slow (it still runs in CI);
- ``<!-- docs-test: skip REASON -->``: not run (a real API key or server is needed), REASON said;
- ``<!-- docs-test: exit N -->``: the block's commands are expected to exit with N;
- ``<!-- docs-test: no-output -->``: only exit codes are checked;
- ``<!-- docs-test: background -->``: the block's commands are started and left running (a server
  the next blocks talk to, as in a second terminal); they are stopped when the file's test ends;
- ``<!-- docs-test: cleanup -->``: the block runs in its place, and when the file's test ends if a
  failure came before it (``ray stop`` after ``ray start``: nothing is left running).

A ```python block marked ``<!-- docs-test: python -->`` is run as a script in the same folder and
must exit 0; when a ```text block follows it directly, its lines must appear in what it printed.
One marked ``<!-- docs-test: file PATH -->`` must be the shipped file PATH, word for word.
Other ```python and ```bash blocks are illustrations (placeholders such as ``MODEL``), not run.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_BLOCK = re.compile(r"(?:<!--\s*docs-test:\s*(?P<note>[^>]*?)\s*-->\s*\n)?```(?P<lang>console|python)\n(?P<body>.*?)```"
                    r"(?:\s*```text\n(?P<shown>.*?)```)?", re.S)


@dataclass
class Command:
    line: str
    shown: list[str] = field(default_factory=list)
    script: str = ""
    """The code of a ``python`` block (then ``line`` is only its name in messages)."""
    shipped: str = ""
    """The shipped file a ``python`` block must equal (then it is compared, not run)."""


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
        note = (match.group("note") or "").strip()
        if match.group("lang") == "python":
            if note.split()[:1] == ["file"]:
                shipped = note.split()[1]
                found.append(Block(f"{path.name}:{line_no}", [Command(f"the python block of {shipped}", [], match.group("body"), shipped)], note))
            elif "python" in note.split():
                shown = [raw for raw in (match.group("shown") or "").splitlines() if raw.strip()]
                found.append(Block(f"{path.name}:{line_no}", [Command("the python block", shown, match.group("body"))], note))
            continue
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
        found.append(Block(f"{path.name}:{line_no}", commands, note))
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


def _run(command: Command, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    if command.script:
        return subprocess.run([sys.executable, "-"], input=command.script, cwd=cwd, env=env, capture_output=True,
                              text=True, timeout=1800)
    return _run_line(command.line, cwd, env)


def _run_line(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    # The README calls the installed program by its path in the virtualenv; it is the same program.
    command = re.sub(r"(^|\s)\.venv/bin/incanon\b", r"\1incanon", command)
    command = re.sub(r"(^|\s)\.venv/bin/python\b", rf"\1{sys.executable}", command)
    words = shlex.split(command)
    if words and words[0] == "incanon" and not any(c in command for c in "|><;&"):
        return subprocess.run([sys.executable, "-m", "incanon", *words[1:]], cwd=cwd, env=env,
                              capture_output=True, text=True, timeout=1800)
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=1800)


def _start(command: str, cwd: Path, env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    command = re.sub(r"(^|\s)incanon\b", rf"\1{sys.executable} -m incanon", command, count=1)
    with log.open("wb") as sink:  # the child keeps its own copy of the descriptor
        return subprocess.Popen(["bash", "-c", f"exec {command}"], cwd=cwd, env=env, stdout=sink,
                                stderr=subprocess.STDOUT, start_new_session=True)


@dataclass
class Scratch:
    """The folder a guide runs in, its environment, and what must be stopped when it ends."""

    folder: Path
    env: dict[str, str]
    started: list[subprocess.Popen[bytes]] = field(default_factory=list)
    cleanups: list[str] = field(default_factory=list)

    def close(self) -> None:
        for line in self.cleanups:
            _run_line(line, self.folder, self.env)
        for proc in self.started:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()


@pytest.fixture
def scratch(tmp_path: Path):  # noqa: ANN201 - a Scratch, closed after the test
    for shared in ("examples", "benchmarks"):
        (tmp_path / shared).symlink_to(ROOT / shared)
    bin_dir = Path(sys.executable).parent
    # A home of its own: what the guides do must not depend on this machine's dotfiles (a Ray
    # token in ~/.ray, say), as on a fresh machine.
    (tmp_path / "user").mkdir()
    env = {**os.environ, "INCANON_HOME": str(tmp_path / "home"), "HOME": str(tmp_path / "user"),
           "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    env.pop("INCANON_PROMPTS", None)
    # Wide enough that tables print one row per line, as the guides show them.
    env["COLUMNS"] = "200"
    here = Scratch(tmp_path, env)
    yield here
    here.close()


@pytest.mark.parametrize("doc", _params())
def test_guide_runs_as_written(doc: Path, scratch: Scratch) -> None:
    tmp_path, env = scratch.folder, scratch.env
    blocks = _blocks(doc)
    scratch.cleanups = [c.line for b in blocks if "cleanup" in b.note.split() for c in b.commands]
    for block in blocks:
        words = block.note.split()
        if words[:1] == ["skip"]:
            continue
        expected = int(words[words.index("exit") + 1]) if "exit" in words else 0
        if "background" in words:
            for command in block.commands:
                log = tmp_path / f"background-{len(scratch.started)}.log"
                scratch.started.append(_start(command.line, tmp_path, env, log))
            continue
        if "cleanup" in words:
            for command in block.commands:
                scratch.cleanups.remove(command.line)
        for command in block.commands:
            if command.shipped:
                assert command.script == (ROOT / command.shipped).read_text(encoding="utf-8"), (
                    f"{block.where}: the code shown is not {command.shipped} as shipped")
                continue
            res = _run(command, tmp_path, env)
            said = res.stdout + res.stderr
            assert res.returncode == expected, (
                f"{block.where}: `{command.line}` exited {res.returncode}, expected {expected}:\n{said[-3000:]}")
            if "no-output" in words:
                continue
            printed = _normal(said)
            for line in command.shown:
                if "..." in line or "…" in line or " it/s" in line or set(line.strip()) <= set("─━═-"):
                    continue  # elisions, progress lines whose timings vary, table rules as wide as the terminal
                assert _normal(line) in printed, (
                    f"{block.where}: `{command.line}` did not print the line the guide shows:\n  {line.strip()}\n"
                    f"it printed:\n{said[-3000:]}")


PAPERS = {"timechara.md": "2405.18027", "rolerag.md": "2505.18541", "sharp.md": "2411.07965",
          "sharp-claims.md": "2411.07965", "dialsim.md": "2406.13144", "coser-eval.md": "2502.09082",
          "coser-curation.md": "2502.09082"}
_LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_each_benchmark_guide_names_its_paper() -> None:
    for name, arxiv in PAPERS.items():
        text = (ROOT / "docs" / name).read_text(encoding="utf-8")
        assert f"arXiv:{arxiv}" in text[:1500], f"docs/{name} does not name its paper (arXiv:{arxiv}) where it starts"


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_links_stay_in_the_repository(doc: Path) -> None:
    """A relative link resolves to a file of the repository; nothing points at a folder beside it."""
    text = doc.read_text(encoding="utf-8")
    assert "../shared" not in text, f"{doc.name} points outside the repository"
    for target in _LINK.findall(text):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        path = (doc.parent / target.split("#")[0]).resolve()
        assert path.is_relative_to(ROOT) and path.exists(), f"{doc.name}: link {target} does not resolve in the repository"
