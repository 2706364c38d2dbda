"""Write a report file atomically, in the format its name (or ``fmt``) asks for."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from incanon.errors import ConfigError
from incanon.files import write_text_atomic
from incanon.report.html import render_html
from incanon.report.markdown import render_markdown
from incanon.report.model import Report

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
