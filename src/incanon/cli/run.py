"""``incanon run CONFIG``: the evaluations of a run configuration file, as their command lines."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from incanon.cli.output import emit_json, err


def register(app: typer.Typer) -> None:
    """Add ``run`` to the root app."""

    @app.command("run")
    def run_config(
        config: Path = typer.Argument(..., metavar="CONFIG", help="Run configuration (TOML or JSON) with [[eval]] sections."),
        set_: list[str] = typer.Option([], "--set", metavar="KEY=VALUE", help="Override a field of every evaluation (model=...) or of one (eval[1].limit=5)."),
        show: bool = typer.Option(False, "--show", help="Print the resolved evaluations and their command lines; run nothing."),
        only: Optional[int] = typer.Option(None, "--only", min=0, help="Run only the evaluation with this index (0-based)."),
    ) -> None:
        """Run one or more evaluations from a configuration file, exactly as their command lines would.

        Each run stores the resolved section it came from (see `incanon runs show RUN --json`).

        Example: incanon run examples/sharp/run.toml --set method=zero-shot
        """
        import shlex

        from typer.main import get_command

        from incanon.cli.main import app as root
        from incanon.runconfig import load_run_config, resolve, to_argv
        from incanon.runs.ambient import run_defaults

        sections = resolve(load_run_config(config), set_)
        group = get_command(root)
        plans = []
        for index, section in enumerate(sections):
            bench = group.commands.get(section["benchmark"])  # type: ignore[attr-defined]
            command = bench.commands.get(section["command"]) if bench is not None else None  # type: ignore[attr-defined]
            if command is None:
                from incanon.errors import ConfigError

                raise ConfigError(f"eval[{index}].command: `incanon {section['benchmark']}` has no command "
                                  f"{section['command']!r}")
            plans.append((section, to_argv(section, command, f"eval[{index}]")))
        if show:
            emit_json([{"section": s, "command": "incanon " + shlex.join(a)} for s, a in plans])
            return
        for index, (section, argv) in enumerate(plans):
            if only is not None and index != only:
                continue
            err.print(f"[{index + 1}/{len(plans)}] incanon {shlex.join(argv)}", style="bold", highlight=False)
            with run_defaults(source={"config": str(config), "index": index, "section": section}):
                code = root(args=argv, standalone_mode=False, prog_name="incanon")
            if isinstance(code, int) and code != 0:
                raise typer.Exit(code)
