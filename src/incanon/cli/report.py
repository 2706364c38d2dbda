"""``incanon report``: one self-contained HTML or markdown report over stored runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer

from incanon.cli.output import JSON_HELP, emit_json, emit_text, err, out


def register(app: typer.Typer) -> None:
    """Add ``report`` to the root app."""

    @app.command()
    def report(
        run_refs: list[str] = typer.Argument(..., metavar="RUN...", help="Run ids (or unique prefixes), of any benchmarks."),
        html: Optional[Path] = typer.Option(None, "--html", help="Write the report as one self-contained HTML file."),
        md: Optional[Path] = typer.Option(None, "--md", help="Write the report as markdown (charts embedded as data URIs)."),
        runs: Optional[Path] = typer.Option(None, "--runs", help="Run store file (default: INCANON_HOME/runs.sqlite)."),
        title: Optional[str] = typer.Option(None, "--title", help="Report title (default: names the benchmarks)."),
        csv_dir: Optional[Path] = typer.Option(None, "--csv", metavar="DIR", help="Also write every table as a CSV file into this folder."),
        no_plots: bool = typer.Option(False, "--no-plots", help="Leave the charts out (tables only)."),
        json_: bool = typer.Option(False, "--json", help=JSON_HELP + " (the report as data)"),
    ) -> None:
        """Tables in the papers' layouts, charts, run configuration and costs of stored runs; no model is called.

        Without --html, --md, --csv or --json the report is printed to stdout as markdown (without charts).

        Example: incanon report demo-1207 --html report.html --csv tables/
        """
        from incanon.errors import IncanonError, NotFoundError
        from incanon.paths import default_runs_path
        from incanon.report import build_report, write_report
        from incanon.report.markdown import render_markdown
        from incanon.report.write import write_tables_csv
        from incanon.runs import RunStore

        if (html is not None or md is not None) and not no_plots:
            from incanon.extras import require

            require("plot", "drawing the report's charts", "or pass --no-plots")
        path = (runs or default_runs_path()).expanduser()
        if not path.is_file():
            raise NotFoundError(f"no run store at {path}")
        with RunStore(path, create=False, read_only=True) as store:
            result = build_report(store, run_refs, title=title)
        if html is None and md is None and csv_dir is None and not json_:
            emit_text(render_markdown(result, plots=False))
            return
        written: dict[str, Any] = {}
        if csv_dir is not None:
            written["csv"] = [str(p) for p in write_tables_csv(result, csv_dir)]
        for fmt, target in (("html", html), ("md", md)):
            if target is not None:
                try:
                    written[fmt] = str(write_report(result, target, fmt, plots=not no_plots))  # type: ignore[arg-type]
                except IncanonError:
                    raise  # the writer's own line (a folder, a full disk) names the file already
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
            if fmt == "csv":
                out.print(f"{len(target)} tables written as CSV to {csv_dir}", highlight=False, soft_wrap=True)
            else:
                out.print(f"report written to {target}", highlight=False, soft_wrap=True)
