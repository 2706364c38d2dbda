"""Output conventions shared by every command.

``--json`` prints exactly one JSON document to stdout and nothing else there; progress and
notes go to stderr. Without it, commands print rich tables to stdout.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from rich.console import Console

#: Human output (tables, summaries).
out = Console()
#: Progress, notes and warnings: never mixed into a ``--json`` document.
err = Console(stderr=True)


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
    sys.stdout.write(json.dumps(data, default=_default, ensure_ascii=False, indent=2) + "\n")
    sys.stdout.flush()


JSON_HELP = "Print one JSON document to stdout and nothing else there."
