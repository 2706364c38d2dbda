"""``timechara build`` helpers: the dry-run table, and a raw book's scenes into the store."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Optional

from incanon.bench.remote import load_models
from incanon.cli.output import emit_json, err, out
from incanon.errors import ConfigError


def print_build_dry_run(work_id: str, scenes: int, steps: list, json_: bool, note: str = "") -> None:
    if json_:
        emit_json({"dry_run": True, "scenes": scenes, "steps": [s.__dict__ for s in steps]})
        return
    out.print(f"dry run: building {work_id!r} would use {scenes} scenes{note} (no model was called)", highlight=False)
    out.print(f"  {'step':<40} {'calls':>7} {'max':>7} {'tokens in':>10} {'tokens out':>10}", highlight=False)
    for s in steps:
        out.print(f"  {s.step:<40} {s.calls:>7} {s.max_calls:>7} {s.prompt_tokens:>10} {s.completion_tokens:>10}",
                  highlight=False)
    out.print(f"  {'total':<40} {sum(s.calls for s in steps):>7} {sum(s.max_calls for s in steps):>7} "
              f"{sum(s.prompt_tokens for s in steps):>10} {sum(s.completion_tokens for s in steps):>10}",
              highlight=False)


def ingest_book_cmd(book_path: Path, store: Path, work: Optional[str], helper: str, main: list[str], book_options,
                    library: Any, cache: Any) -> tuple[Any, str]:
    """Extract the book's scenes and participants and write them to the store (replacing the work)."""
    from incanon.bench.timechara.book import ingest_book
    from incanon.canon.store import CanonStore

    if not main:
        raise ConfigError("--book needs --characters: the main characters to ask questions of")
    model = load_models([helper], cache)[helper]
    err.print(f"extracting scenes and participants of {book_path} with helper {helper}", style="dim",
              markup=False, highlight=False)
    world, found = asyncio.run(ingest_book(book_path, model, library, main, work_id=work,
                                           options=book_options))
    if not found.scenes:
        raise ConfigError(f"{book_path}: the helper found no scene that could be placed in the book's text "
                          f"({len(found.problems)} problems; first: "
                          f"{found.problems[0].where}: {found.problems[0].error})" if found.problems else
                          f"{book_path}: the helper found no scene")
    canon = CanonStore.open(store)
    canon.import_world(world, replace=True, source=str(book_path))
    err.print(f"{len(found.scenes)} scenes stored in {store} as work {world.work.id!r}", markup=False,
              highlight=False)
    for p in found.problems:
        err.print(f"skipped: {p.step} {p.where}: {p.error}", style="yellow", markup=False, highlight=False)
    no_list = [s.id for s in found.scenes if not s.participants]
    if no_list:
        err.print(f"{len(no_list)} scenes got no participant list from the helper: {', '.join(no_list[:10])}",
                  style="yellow", markup=False, highlight=False)
    return canon, world.work.id


__all__ = ["ingest_book_cmd", "print_build_dry_run"]
