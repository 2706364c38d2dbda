"""``incanon cache``: look at and empty the response cache."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich import box
from rich.table import Table

from incanon.cli.output import JSON_HELP, emit_json, out
from incanon.models.cache import CacheStats, ResponseCache
from incanon.paths import default_cache_path

app = typer.Typer(help="Inspect and clear the model response cache.", no_args_is_help=True)

CACHE_HELP = "Cache file (default: ~/.incanon/cache.sqlite, or $INCANON_HOME/cache.sqlite)."


def _target(path: Optional[Path]) -> Path:
    return path.expanduser() if path is not None else default_cache_path()


def _size(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return str(n)


@app.command("stats")
def stats(
    cache: Optional[Path] = typer.Option(None, "--cache", help=CACHE_HELP),
    json_: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Entries and bytes in the cache, per model identity (which weights or server answered).

    Example: incanon cache stats --json
    """
    target = _target(cache)
    if target.exists():
        result = ResponseCache(target).stats()
    else:  # looking must not create the file
        result = CacheStats(path=str(target), entries=0, responses=0, embeddings=0, bytes=0,
                            file_bytes=0, models={}, hits=0, misses=0)
    if json_:
        emit_json(result.model_dump(mode="json", exclude={"hits", "misses"}))
        return
    out.print(f"cache {result.path}: {result.responses} responses, {result.embeddings} embeddings, "
              f"{_size(result.bytes)} of values, {_size(result.file_bytes)} on disk")
    if result.models:
        table = Table(box=box.SIMPLE)
        table.add_column("model identity")
        table.add_column("entries", justify="right")
        table.add_column("bytes", justify="right")
        for name, entry in result.models.items():
            table.add_row(name, str(entry.entries), _size(entry.bytes))
        out.print(table)


@app.command("clear")
def clear(
    model: Optional[str] = typer.Option(None, "--model", help="Only this model's entries: an identity as in stats, or a name (openai:gpt-4o) for all of its identities."),
    cache: Optional[Path] = typer.Option(None, "--cache", help=CACHE_HELP),
    json_: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Delete cached responses and vectors: all of them, or one model's.

    Example: incanon cache clear --model scripted:agent
    """
    target = _target(cache)
    removed = ResponseCache(target).clear(model) if target.is_file() else 0
    if json_:
        emit_json({"path": str(target), "model": model, "removed": removed})
        return
    what = f"entries of {model}" if model else "entries"
    out.print(f"removed {removed} {what} from {target}")
