"""CoSER files: the per-book JSON and the test-set JSON read (errors name the file and the JSON
path of the first bad field) and written atomically. The layouts are in ``formats``."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from incanon.bench.coser.formats import BookData, TestSample
from incanon.errors import InputError, NotFoundError
from incanon.files import write_text_atomic


def write_json(path: str | os.PathLike[str], data: Any) -> Path:
    return write_text_atomic(path, json.dumps(data, ensure_ascii=False, indent=2) + "\n")


def read_json(path: str | os.PathLike[str]) -> Any:
    """Parse a JSON file; NotFoundError / InputError (file, line and column) on failure."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise NotFoundError(f"{file} does not exist") from None
    except IsADirectoryError:
        raise InputError("is a directory, expected a JSON file", source=str(file)) from None
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text ({exc.reason} at byte {exc.start})", source=str(file)) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"malformed JSON: {exc.msg}", source=str(file), where=f"line {exc.lineno}, column {exc.colno}") from None


def _json_path(loc: tuple[int | str, ...], prefix: str = "") -> str:
    out = prefix
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def _validate(model: type[BaseModel], data: Any, *, source: str, prefix: str = "") -> Any:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = _json_path(tuple(first["loc"]), prefix)
        raise InputError(f"{first['msg']}", source=source, where=where) from None


def book_from_data(data: Any, *, title: str, source: str = "<data>") -> BookData:
    if not isinstance(data, dict):
        raise InputError("expected a JSON object with 'plots'", source=source, where="(top level)")
    if "plots" not in data:
        raise InputError("missing field 'plots'", source=source, where="plots")
    book = _validate(BookData, data, source=source)
    if not book.title:
        book.title = title
    return book


def load_book(path: str | os.PathLike[str]) -> BookData:
    """Read one per-book JSON file; the title is the file name without ``.json``."""
    file = Path(path)
    return book_from_data(read_json(file), title=file.stem, source=str(file))


def load_books(directory: str | os.PathLike[str]) -> list[BookData]:
    """Every ``*.json`` per-book file of a folder, by file name."""
    folder = Path(directory)
    if not folder.is_dir():
        raise NotFoundError(f"{folder} is not a folder of CoSER book files")
    return [load_book(p) for p in sorted(folder.glob("*.json")) if not p.name.startswith(".")]


def write_book(book: BookData, path: str | os.PathLike[str]) -> Path:
    return write_json(path, book.published())


def load_test_set(path: str | os.PathLike[str]) -> list[TestSample]:
    """Read a test-set JSON list (published or sampled here); motivations from either field name."""
    file = Path(path)
    data = read_json(file)
    if isinstance(data, dict) and isinstance(data.get("samples"), list):
        data = data["samples"]
    if not isinstance(data, list):
        raise InputError("expected a JSON list of test samples", source=str(file), where="(top level)")
    return [_validate(TestSample, row, source=str(file), prefix=f"[{i}]") for i, row in enumerate(data)]


def write_test_set(samples: list[TestSample], path: str | os.PathLike[str]) -> Path:
    return write_json(path, [s.published() for s in samples])
