"""Write a report file atomically, in the format its name (or ``fmt``) asks for."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Literal

from incanon.errors import ConfigError
from incanon.report.html import render_html
from incanon.report.markdown import render_markdown
from incanon.report.model import Report

Format = Literal["html", "md"]


def write_text_atomic(path: str | os.PathLike[str], text: str) -> Path:
    """Write through a temporary file in the same folder and a rename: readers see the old file
    or the new one, never a half-written report."""
    target = Path(path).expanduser()
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        # mkstemp makes 0600: keep the mode of the file replaced, else the usual 0644.
        os.chmod(tmp, target.stat().st_mode & 0o777 if target.exists() else 0o644)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


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
