"""``incanon doctor``."""

from __future__ import annotations

import typer
from rich.table import Table

from incanon.cli.output import JSON_HELP, emit_json, out


def register(app: typer.Typer) -> None:
    """Add ``doctor`` to the root app."""

    @app.command()
    def doctor(
        endpoint: list[str] = typer.Option(
            [], "--endpoint", help="Base URL of an OpenAI-compatible server to probe (repeatable); OPENAI_BASE_URL is probed too."
        ),
        quick: bool = typer.Option(False, "--quick", help="Skip the test generation on the embedded model."),
        json_: bool = typer.Option(False, "--json", help=JSON_HELP),
    ) -> None:
        """Check what is installed and reachable, with a concrete fix for each problem.

        Example: incanon doctor --endpoint http://127.0.0.1:8000/v1
        """
        from incanon.doctor import run_checks

        checks = run_checks(endpoint, generate=not quick)
        failed = [c for c in checks if not c.ok and c.required]
        if json_:
            emit_json({"ok": not failed, "checks": [c.__dict__ for c in checks]})
        else:
            table = Table(title="incanon doctor")
            for col in ("check", "status", "detail", "fix"):
                table.add_column(col, overflow="fold")
            for c in checks:
                status = "ok" if c.ok else ("FAIL" if c.required else "warn")
                table.add_row(c.name, status, c.detail, c.fix)
            out.print(table)
            if failed:
                out.print(f"{len(failed)} problem(s); apply the fixes above.", style="red")
            else:
                out.print("The embedded defaults work.", style="green")
        raise typer.Exit(1 if failed else 0)
