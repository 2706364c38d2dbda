"""Reading and writing world files (the JSON interchange format) with errors a user can act on."""

from __future__ import annotations

import json
import os
from pathlib import Path

from pydantic import ValidationError

from incanon.canon.world import World
from incanon.errors import InputError, NotFoundError
from incanon.files import write_text_atomic


def json_path(loc: tuple[int | str, ...]) -> str:
    """A pydantic error location as a JSON path: ``('scenes', 3, 'id')`` → ``scenes[3].id``."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def world_from_data(data: object, *, source: str) -> World:
    """Validate parsed JSON as a ``World``; InputError naming the field path on a violation."""
    try:
        return World.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        first = errors[0]
        more = f" (and {len(errors) - 1} more problems)" if len(errors) > 1 else ""
        got = first.get("input")
        shown = "" if first["type"] == "missing" or isinstance(got, (dict, list)) else f", got {got!r}"
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
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise NotFoundError(f"world file {file} does not exist") from None
    except IsADirectoryError:
        raise InputError(f"world file {file} is a directory") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text ({exc.reason} at byte {exc.start})", source=str(file)) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"malformed JSON: {exc.msg}", source=str(file), where=f"line {exc.lineno}, column {exc.colno}"
        ) from None
    return world_from_data(data, source=str(file))


def write_world_file(world: World, path: str | os.PathLike[str]) -> Path:
    """Write ``world`` as JSON atomically: a temporary file in the same folder, then a rename,
    so a crash never leaves a half-written world where a good one was."""
    return write_text_atomic(path, world.model_dump_json(indent=2) + "\n")
