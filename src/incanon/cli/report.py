"""``incanon report``: one self-contained HTML or markdown report over stored runs."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from incanon.cli.output import JSON_HELP, emit_json, err, out


def register(app: typer.Typer) -> None:
    """Add ``report`` to the root app."""

    @app.command()
    def report(
        run_refs: list[str] = typer.Argument(..., metavar="RUN...", help="Run ids (or unique prefixes), of any benchmarks."),
        html: Optional[Path] = typer.Option(None, "--html", help="Write the report as one self-contained HTML file."),
        md: Optional[Path] = typer.Option(None, "--md", help="Write the report as markdown (charts embedded as data URIs)."),
        runs: Optional[Path] = typer.Option(None, "--runs", help="Run store file (default: INCANON_HOME/runs.sqlite)."),
        title: Optional[str] = typer.Option(None, "--title", help="Report title (default: names the benchmarks)."),
        no_plots: bool = typer.Option(False, "--no-plots", help="Leave the charts out (tables only)."),
        json_: bool = typer.Option(False, "--json", help=JSON_HELP + " (the report as data)"),
    ) -> None:
        """Tables in the papers' layouts, charts, run configuration and costs of stored runs; no model is called."""
        from incanon.errors import ConfigError, IncanonError, NotFoundError
        from incanon.paths import default_runs_path
        from incanon.report import build_report, write_report
        from incanon.runs import RunStore

        if html is None and md is None and not json_:
            raise ConfigError("say where the report goes: --html FILE, --md FILE (or both), or --json")
        path = (runs or default_runs_path()).expanduser()
        if not path.is_file():
            raise NotFoundError(f"no run store at {path}")
        with RunStore(path, create=False) as store:
            result = build_report(store, run_refs, title=title)
        written = {}
        for fmt, target in (("html", html), ("md", md)):
            if target is not None:
                try:
                    written[fmt] = str(write_report(result, target, fmt, plots=not no_plots))  # type: ignore[arg-type]
                except OSError as exc:
                    raise IncanonError(f"cannot write {target}: {exc.strerror or exc}") from None
        if json_:
            emit_json({**result.to_json(), "written": written})
            return
        for section in result.sections:
            out.print(f"{section.title}: {len(section.runs)} run(s), {len(section.charts)} chart(s)",
                      highlight=False)
            for note in section.notes:
                err.print(f"note: {note}", highlight=False, soft_wrap=True)
        for fmt, target in written.items():
            out.print(f"report written to {target}", highlight=False, soft_wrap=True)
