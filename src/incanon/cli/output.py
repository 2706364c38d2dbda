"""Output conventions shared by every command.

``--json`` prints exactly one JSON document to stdout and nothing else there; progress and
notes go to stderr. Without it, commands print rich tables to stdout.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from incanon.consoles import make_console
from incanon.printable import escape_controls, json_safe, shorten_quotes
from rich.text import Text

#: Human output (tables, summaries).
out = make_console()
#: Progress, notes and warnings: never mixed into a ``--json`` document.
err = make_console(stderr=True)


#: Longest piece of user text a message shows; the rest is elided (a 10 MB title must not
#: take half a minute to print, nor fill the terminal).
MAX_SHOWN = 300


def clip(text: object, limit: int = MAX_SHOWN) -> str:
    """``text`` as one line of at most about ``limit`` characters for a message or a table cell:
    control characters (newlines too) escaped, so a name cannot drive the terminal or break the
    line, and the middle of long text elided with its length said."""
    value = str(text)
    if len(value) <= limit:
        return escape_controls(value)
    keep = max(8, limit // 2 - 20)
    return f"{escape_controls(value[:keep])}… [{len(value) - 2 * keep:,} characters] …{escape_controls(value[-keep:])}"


def error_line(exc: BaseException) -> Text:
    """The one line printed for a user error: credentials redacted, control characters escaped,
    quoted input cut to an excerpt, long text clipped, and never read as rich markup (a file
    called ``[draft].json`` keeps its brackets)."""
    from incanon.secrets import redact

    message = " ".join(redact(str(exc)).split())
    return Text.assemble(("error: ", "bold red"), clip(shorten_quotes(message), 2000))


def _default(obj: Any) -> Any:
    if hasattr(obj, "model_dump"):
        return obj.model_dump(mode="json")
    if hasattr(obj, "isoformat"):
        return obj.isoformat()
    if isinstance(obj, (set, frozenset, tuple)):
        return list(obj)
    return str(obj)


def emit_json(data: Any) -> None:
    """Write ``data`` as one JSON document to stdout."""
    sys.stdout.write(json_safe(json.dumps(data, default=_default, ensure_ascii=False, indent=2)) + "\n")
    sys.stdout.flush()


def emit_text(text: str) -> None:
    """Write ``text`` (a report, a printout; newline-ended or not) to stdout as it is, except
    control characters, escaped: model replies and user files inside it cannot drive the terminal."""
    sys.stdout.write(escape_controls(text, keep_newlines=True))
    sys.stdout.flush()


JSON_HELP = "Print one JSON document to stdout and nothing else there."


def emit_report(report: Any, md: Path | None, json_: bool, extra: dict[str, Any], **fields: Any) -> None:
    """Print a benchmark report (an object with ``markdown()`` and ``model_dump()``): its
    markdown on stdout, or with ``json_`` one JSON document (``extra``, the report, ``fields``
    and the markdown). ``md``: also write the markdown there, atomically."""
    from incanon.files import write_text_atomic
    from incanon.report.markdown import inert_html

    text = inert_html(report.markdown())
    if md is not None:
        write_text_atomic(md, text)
        err.print(f"report written to {md}", style="dim")
    if json_:
        emit_json({**extra, "report": report.model_dump(mode="json"), **fields, "markdown": text})
    else:
        emit_text(text + "\n")
