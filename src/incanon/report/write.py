"""Write a report file atomically, in the format its name (or ``fmt``) asks for."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from incanon.errors import ConfigError
from incanon.files import write_text_atomic
from incanon.report.html import render_html
from incanon.report.markdown import render_markdown
from incanon.report.model import Report, Table

Format = Literal["html", "md"]


def write_report(report: Report, path: str | os.PathLike[str], fmt: Format | None = None, *,
                 plots: bool = True) -> Path:
    """Write ``report`` to ``path`` as HTML or markdown (``fmt``, else from the suffix:
    ``.html``/``.htm`` or ``.md``/``.markdown``); returns the path."""
    suffix = Path(path).suffix.lower()
    chosen = fmt or {".html": "html", ".htm": "html", ".md": "md", ".markdown": "md"}.get(suffix)
    if chosen == "html":
        return write_text_atomic(path, render_html(report, plots))
    if chosen == "md":
        return write_text_atomic(path, render_markdown(report, plots))
    raise ConfigError(f"cannot tell the report format of {path}: name it .html or .md")


def _slug(text: str) -> str:
    return "-".join("".join(ch.lower() if ch.isalnum() else " " for ch in text).split())[:60] or "table"


def _titled_tables(section) -> list[tuple[str, Table]]:  # noqa: ANN001 - a report Section
    """The tables of one section, each with the title that tells it apart: its caption, else
    the sentence that introduces it (a text block ending in ``:`` right before it), else the
    heading it sits under."""
    heading = section.title
    intro = ""
    found: list[tuple[str, Table]] = []
    for block in section.blocks:
        if block.kind == "heading":
            heading, intro = block.text, ""
        elif block.kind in ("text", "note"):
            text = block.text.strip()
            intro = text.rstrip(":").strip() if text.endswith(":") else ""
        elif block.kind == "table" and block.table is not None:
            found.append((block.table.caption or intro or heading, block.table))
            intro = ""
    if section.scores is not None:
        found.append(("scores by run", section.scores))
    if section.costs is not None:
        found.append(("usage and cost", section.costs))
    return found


def report_tables(report: Report) -> list[tuple[str, Table]]:
    """Every table of ``report`` with a file name: ``<benchmark>-<nn>-<what the table is>.csv``,
    in order (the paper-layout tables under their headings, then scores by run, then usage and
    cost). Tables of one heading had one name apart from the number; a title that several tables
    share is told apart by each table's own columns."""
    named: list[tuple[str, Table]] = []
    for section in report.sections:
        found = _titled_tables(section)
        counts: dict[str, int] = {}
        for title, _ in found:
            counts[_slug(title)] = counts.get(_slug(title), 0) + 1
        for index, (title, table) in enumerate(found, start=1):
            what = _slug(title)
            if counts[what] > 1:
                what = f"{_slug(' '.join(table.columns[:4]))[:40]}-{what[:30]}".strip("-")
            named.append((f"{_slug(section.benchmark)}-{index:02d}-{what}.csv", table))
    return named


def write_tables_csv(report: Report, folder: str | os.PathLike[str]) -> list[Path]:
    """Write every table of ``report`` as a CSV file in ``folder`` (each atomically); returns the paths."""
    import csv
    import io

    target = Path(folder).expanduser()
    if target.exists() and not target.is_dir():
        raise ConfigError(f"--csv {target}: expected a folder, found a file")
    written = []
    for name, table in report_tables(report):
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(table.columns)
        writer.writerows(table.rows)
        written.append(write_text_atomic(target / name, buffer.getvalue()))
    return written
