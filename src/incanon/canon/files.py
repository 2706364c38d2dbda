"""Reading and writing world files (the JSON interchange format) with errors a user can act on."""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import ValidationError

from incanon.canon.world import World
from incanon.errors import InputError
from incanon.files import write_text_atomic
from incanon.reading import read_json


def json_path(loc: tuple[int | str, ...]) -> str:
    """A pydantic error location as a JSON path: ``('scenes', 3, 'id')`` → ``scenes[3].id``."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def _short(value: object, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)"


def world_from_data(data: object, *, source: str) -> World:
    """Validate parsed JSON as a ``World``; InputError naming the field path on a violation."""
    try:
        return World.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        first = errors[0]
        more = f" (and {len(errors) - 1} more problems)" if len(errors) > 1 else ""
        got = first.get("input")
        shown = "" if first["type"] == "missing" or isinstance(got, (dict, list)) else f", got {_short(got)}"
        where = json_path(tuple(first["loc"]))
        error = InputError(f"{where}: {first['msg']}{shown}{more}", source=source)
        error.where = where
        raise error from None


def load_world_file(path: str | os.PathLike[str]) -> World:
    """Read a world JSON file.

    Malformed JSON → InputError naming the file, line and column; a schema violation →
    InputError naming the file, the field path and what was expected.
    """
    file = Path(path)
    return world_from_data(read_json(file, "world file"), source=str(file))


def write_world_file(world: World, path: str | os.PathLike[str]) -> Path:
    """Write ``world`` as JSON atomically: a temporary file in the same folder, then a rename,
    so a crash never leaves a half-written world where a good one was."""
    return write_text_atomic(path, world.model_dump_json(indent=2) + "\n")
