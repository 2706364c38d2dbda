"""A work's first embedding in a process of its own (the web app's background job).

The bundled embedder computes on the CPU in Python and numpy: in the server's own process it
would hold the interpreter lock for most of a minute and slow every other request. Run apart, it
uses another core and the server stays responsive. The job reports on stdout, one JSON object a
line: ``{"done": D, "todo": T}`` before the first batch and after each, then ``{"ok": true}`` or
``{"error": "..."}``::

    python -m incanon.serve.embedjob CANON WORK EMBEDDER [BATCH]
"""

from __future__ import annotations

import json
import sys


def _say(**fields: object) -> None:
    print(json.dumps(fields), flush=True)


def main(argv: list[str] | None = None) -> int:
    """Embed the work's chunks that lack a vector; 0 when done, 1 on failure (said on stdout)."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) not in (3, 4):
        print(__doc__, file=sys.stderr)
        return 2
    canon, work, spec = args[:3]
    batch = int(args[3]) if len(args) == 4 else 16
    try:
        from incanon.canon.store import CanonStore
        from incanon.models import load_embedder
        from incanon.retrieval.index import index_chunks

        embedder = load_embedder(spec)
        with CanonStore.open(canon) as store:
            index_chunks(store, work, embedder, batch_size=batch, progress=lambda done, todo: _say(done=done, todo=todo))
    except Exception as exc:  # noqa: BLE001 - the server tells the chats that wait
        from incanon.errors import IncanonError

        _say(error=str(exc) if isinstance(exc, IncanonError) else f"{type(exc).__name__}: {exc}")
        return 1
    _say(ok=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
