"""Every ``Example:`` line of every command's help is a command the program accepts: its command
path exists, its options and arguments parse, and the shipped files it names exist. (Running them
would need the models they name, ``ollama/llama3.1`` and the like; the guides run real commands.)"""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer

from incanon.cli.main import app

ROOT = Path(__file__).resolve().parents[2]


def _commands(cmd: Any, path: tuple[str, ...], ctx_class: Any) -> Iterator[tuple[tuple[str, ...], Any]]:
    if hasattr(cmd, "list_commands"):
        ctx = ctx_class(cmd)
        for name in cmd.list_commands(ctx):
            sub = cmd.get_command(ctx, name)
            if sub is not None and not getattr(sub, "hidden", False):
                yield from _commands(sub, (*path, name), ctx_class)
    else:
        yield path, cmd


def _examples() -> list[Any]:
    root = typer.main.get_command(app)
    ctx_class = type(root.make_context("incanon", ["--help"], resilient_parsing=True))
    found = []
    for path, cmd in _commands(root, (), ctx_class):
        for line in (cmd.help or "").splitlines():
            line = line.strip()
            if line.startswith("Example:"):
                found.append(pytest.param(path, line.removeprefix("Example:").strip(), id=" ".join(path)))
    return found


EXAMPLES = _examples()


def test_the_help_texts_hold_examples() -> None:
    assert len(EXAMPLES) >= 40  # nearly every command shows one


@pytest.mark.parametrize(("path", "example"), EXAMPLES)
def test_a_help_example_is_a_command_the_program_accepts(path: tuple[str, ...], example: str) -> None:
    words = shlex.split(example)
    assert words[0] == "incanon", f"{' '.join(path)}: the example does not start with incanon: {example}"
    root = typer.main.get_command(app)
    ctx = root.make_context("incanon", list(words[1:]), resilient_parsing=True)
    # Walk down the command path the example names, as the program would.
    cmd, args = root, list(words[1:])
    while hasattr(cmd, "list_commands"):
        name, args = args[0], args[1:]
        sub = cmd.get_command(ctx, name)
        assert sub is not None, f"{' '.join(path)}: the example names no command {name!r}: {example}"
        cmd = sub
    assert cmd.name == path[-1], f"the help of {' '.join(path)} shows an example of another command: {example}"
    try:
        cmd.make_context(" ".join(path), args)  # parses options and arguments; runs nothing
    except Exception as exc:  # the vendored click's UsageError and BadParameter
        raise AssertionError(f"{' '.join(path)}: the example does not parse ({exc}): {example}") from None
    for word in words:
        value = word.split("=", 1)[-1].removeprefix("scripted:")
        if value.startswith(("examples/", "benchmarks/")):
            assert (ROOT / value).exists(), f"{' '.join(path)}: the example names {value}, which is not shipped"


@pytest.mark.parametrize("bad", ["incanon serve --canon canon",
                                 "incanon canon build examples/book/harbour.txt --store canon"])
def test_a_wrong_example_is_caught(bad: str) -> None:
    path = ("serve",) if " serve " in f" {bad} " else ("canon", "build")
    with pytest.raises(AssertionError, match="does not parse|not shipped"):
        test_a_help_example_is_a_command_the_program_accepts(path, bad)
