"""Reading user files safely: every way a file can be wrong becomes one ``IncanonError`` line
naming the file (and the line where there is one), never a traceback.

Every command that reads JSON, JSON Lines or text the user gave goes through here, so hostile
input is handled once: a missing path or a directory, an empty file, bytes that are not UTF-8,
a Python pickle, JSON nested deeper than any real document, integers of thousands of digits,
``NaN`` / ``Infinity`` (not JSON, and poison for every mean), and invalid JSON. Messages never
echo the offending content, so a 10 MB line cannot flood the terminal.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from incanon.errors import InputError, NotFoundError

#: Digits allowed in a JSON integer; real datasets never come near it, hostile ones do.
MAX_INT_DIGITS = 640

_PICKLE_PROTOCOLS = {2, 3, 4, 5}


def _check_path(path: str | os.PathLike[str], what: str) -> Path:
    source = Path(path).expanduser()
    if source.is_dir():
        raise InputError(f"{what} is a directory, expected a file", source=str(source))
    if not source.exists():
        raise NotFoundError(f"{what} {source} does not exist")
    return source


def _line_of(data: bytes | str, offset: int) -> int:
    newline = b"\n" if isinstance(data, bytes) else "\n"
    return data.count(newline, 0, offset) + 1  # type: ignore[arg-type]


def decode_text(raw: bytes, source: str, what: str = "file") -> str:
    """``raw`` as UTF-8 text (a BOM is dropped); a pickle or non-UTF-8 bytes are an
    ``InputError`` naming the file and the line of the first bad byte."""
    if len(raw) >= 2 and raw[0] == 0x80 and raw[1] in _PICKLE_PROTOCOLS:
        raise InputError(f"{what} looks like a Python pickle; incanon never loads pickles, give JSON",
                         source=source)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{what} is not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start})",
                         source=source, where=f"line {_line_of(raw, exc.start)}") from None


def read_text(path: str | os.PathLike[str], what: str = "file", *, allow_empty: bool = False) -> str:
    """The UTF-8 text of ``path``; missing, a directory, empty (unless ``allow_empty``),
    a pickle or not UTF-8 is a one-line error naming the file."""
    source = _check_path(path, what)
    try:
        raw = source.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read {what}: {exc.strerror}", source=str(source)) from None
    if not raw.strip() and not allow_empty:
        raise InputError(f"{what} is empty", source=str(source))
    return decode_text(raw, str(source), what)


class _Rejected(ValueError):
    """Raised inside the JSON decoder's hooks; carries the literal so its line can be found."""

    def __init__(self, message: str, literal: str):
        super().__init__(message)
        self.literal = literal


def _parse_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise _Rejected(f"an integer of {digits} digits (at most {MAX_INT_DIGITS} are accepted)", text)
    return int(text)


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Rejected(f"the number {text[:40]} is out of range", text)
    return value


def _parse_constant(name: str) -> Any:
    raise _Rejected(f"{name} is not a JSON value (numbers must be finite)", name)


def parse_json(text: str, source: str, where: str | None = None) -> Any:
    """Decode one JSON document strictly (no NaN / Infinity, bounded integers and nesting);
    every problem is an ``InputError`` naming ``source``, ``where`` and the line."""

    def fail(message: str, offset: int | None) -> InputError:
        place = where
        if offset is not None and offset >= 0 and (where is None or "\n" in text.rstrip("\n")):
            line = f"line {_line_of(text, offset)}"
            place = f"{where}, {line}" if where else line
        return InputError(message, source=source, where=place)

    try:
        return json.loads(text, parse_int=_parse_int, parse_float=_parse_float, parse_constant=_parse_constant)
    except json.JSONDecodeError as exc:
        # A JSON Lines row names its line already (``where``); within it only the column counts.
        place = f"column {exc.colno}" if where and exc.lineno == 1 else f"line {exc.lineno}, column {exc.colno}"
        raise InputError(f"invalid JSON ({exc.msg})", source=source,
                         where=f"{where}, {place}" if where else place) from None
    except _Rejected as exc:
        raise fail(f"invalid JSON: {exc}", text.find(exc.literal)) from None
    except RecursionError:
        # The C decoder recurses once per level; Python's recursion limit is the bound.
        raise fail("JSON nested too deeply (thousands of levels)", None) from None


def read_json(path: str | os.PathLike[str], what: str = "file") -> Any:
    """The JSON document in ``path``, read with :func:`read_text` and :func:`parse_json`."""
    text = read_text(path, what)
    return parse_json(text, str(Path(path).expanduser()))


def iter_jsonl_lenient(path: str | os.PathLike[str], what: str = "file") -> Iterator[tuple[str, Any]]:
    """``("line N", value)`` for each non-blank line of a JSON Lines file, streamed line by line
    (bytes decoded per line, so a bad byte names its line). A line that is not UTF-8 or not
    JSON yields its ``InputError`` as the value, for readers that report every bad line at once;
    a missing path, a directory, an empty file or a pickle raises."""
    source = _check_path(path, what)
    with open(source, "rb") as stream:
        head = stream.read(2)
        stream.seek(0)
        if len(head) == 2 and head[0] == 0x80 and head[1] in _PICKLE_PROTOCOLS:
            raise InputError(f"{what} looks like a Python pickle; incanon never loads pickles, give JSON Lines",
                             source=str(source))
        if not head:
            raise InputError(f"{what} is empty", source=str(source))
        for number, raw in enumerate(stream, start=1):
            where = f"line {number}"
            try:
                line = raw.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                yield where, InputError(f"{what} is not UTF-8 text (byte 0x{raw[exc.start]:02x})",
                                        source=str(source), where=where)
                continue
            if not line.strip():
                continue
            try:
                yield where, parse_json(line, str(source), where)
            except InputError as exc:
                yield where, exc


def iter_jsonl(path: str | os.PathLike[str], what: str = "file") -> Iterator[tuple[str, Any]]:
    """Like :func:`iter_jsonl_lenient`, the first bad line raises its ``InputError``."""
    for where, value in iter_jsonl_lenient(path, what):
        if isinstance(value, InputError):
            raise value
        yield where, value


def iter_jsonl_objects(path: str | os.PathLike[str], what: str = "file") -> Iterator[tuple[str, dict[str, Any]]]:
    """Like :func:`iter_jsonl`, each line must be a JSON object."""
    for where, data in iter_jsonl(path, what):
        if not isinstance(data, dict):
            raise InputError(f"expected a JSON object, found {type(data).__name__}", source=str(Path(path).expanduser()),
                             where=where)
        yield where, data


def read_json_or_jsonl(path: str | os.PathLike[str], what: str = "file") -> list[Any]:
    """A JSON list (``.json``) or the rows of a JSON Lines file (``.jsonl`` or a text that is not one
    JSON document), as a list."""
    source = Path(path).expanduser()
    if source.suffix.lower() in {".jsonl", ".ndjson"}:
        return [value for _, value in iter_jsonl(source, what)]
    data = read_json(source, what)
    if not isinstance(data, list):
        raise InputError(f"expected a JSON list, found {type(data).__name__}", source=str(source))
    return data
