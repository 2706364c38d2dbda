"""Reading user files safely: every way a file can be wrong becomes one ``IncanonError`` line
naming the file (and the line where there is one), never a traceback.

Every command that reads JSON, JSON Lines or text the user gave goes through here, so hostile
input is handled once: a missing path or a directory, an empty file, bytes that are not UTF-8,
a Python pickle, JSON nested deeper than any real document, integers of thousands of digits,
``NaN`` / ``Infinity`` (not JSON, and poison for every mean), and invalid JSON. Messages never
echo the offending content, so a 10 MB line cannot flood the terminal.

Files that are not what they seem are refused before anything opens them: a FIFO, socket or
device where a file is expected would block or never end, a symlink loop would surface as an
``OSError`` deep in a library. JSON objects with the same key twice, strings holding a lone
UTF-16 surrogate (``"\\ud800"``: valid JSON escapes, not text) and NUL bytes in text files are
refused too, each naming the file and line. :func:`~incanon.jsonlines.skipping_bad_lines` lets a command skip the
unreadable lines of JSON Lines files instead, counting them; the JSON Lines readers are in
:mod:`incanon.jsonlines`.
"""

from __future__ import annotations

import errno
import json
import math
import os
import re
import stat
from json.decoder import JSONObject  # type: ignore[attr-defined]
from json.scanner import py_make_scanner  # type: ignore[attr-defined]
from pathlib import Path
from typing import Any

from incanon.errors import InputError, NotFoundError

#: Digits allowed in a JSON integer; real datasets never come near it, hostile ones do.
MAX_INT_DIGITS = 640

#: The protocol bytes after 0x80 that open a Python pickle (refused, never loaded).
PICKLE_PROTOCOLS = {2, 3, 4, 5}


_KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


def _kind_of(mode: int) -> str:
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


def _stat(source: Path, what: str) -> os.stat_result:
    """``stat`` (following symlinks) with every failure a one-line error naming ``source``."""
    try:
        return source.stat()
    except FileNotFoundError:
        raise NotFoundError(f"{what} {source} does not exist") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise InputError(f"{what} is a symlink loop (it never reaches a file)", source=str(source)) from None
        raise InputError(f"cannot read {what}: {exc.strerror}", source=str(source)) from None
    except RuntimeError:  # pathlib's own symlink loop detection (resolve) on older Pythons
        raise InputError(f"{what} is a symlink loop (it never reaches a file)", source=str(source)) from None


def check_file(path: str | os.PathLike[str], what: str = "file") -> Path:
    """``path`` (``~`` expanded) if it is a regular file, or a symlink to one; a missing path,
    a folder, a symlink loop, a FIFO, socket or device is a one-line error naming it (checked
    without opening it: opening a FIFO blocks until someone writes to it)."""
    source = Path(path).expanduser()
    mode = _stat(source, what).st_mode
    if stat.S_ISDIR(mode):
        raise InputError(f"{what} is a directory, expected a file", source=str(source))
    if not stat.S_ISREG(mode):
        raise InputError(f"{what} is {_kind_of(mode)}, expected a regular file", source=str(source))
    return source


def check_folder(path: str | os.PathLike[str], what: str = "folder") -> Path:
    """``path`` if it is a folder (or a symlink to one); anything else is a one-line error."""
    source = Path(path).expanduser()
    mode = _stat(source, what).st_mode
    if not stat.S_ISDIR(mode):
        kind = "a file" if stat.S_ISREG(mode) else _kind_of(mode)
        raise InputError(f"{what} is {kind}, expected a folder", source=str(source))
    return source


def check_file_or_folder(path: str | os.PathLike[str], what: str = "file") -> Path:
    """``path`` if it is a regular file or a folder (commands that take either)."""
    source = Path(path).expanduser()
    mode = _stat(source, what).st_mode
    if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
        raise InputError(f"{what} is {_kind_of(mode)}, expected a file or a folder", source=str(source))
    return source


#: Entries a folder walk looks at before giving up: a dataset folder holds hundreds of files; a
#: path that leads to ``/`` or a home folder holds millions and would take minutes to refuse.
MAX_WALK_ENTRIES = 50_000


def walk_files(root: str | os.PathLike[str], what: str = "folder", *,
               max_entries: int = MAX_WALK_ENTRIES) -> list[Path]:
    """Every regular file under the folder ``root`` (sorted), not following symlinked folders
    inside it (a link to ``/`` or back to ``root`` would walk the filesystem or loop). More than
    ``max_entries`` entries is an ``InputError``: not a dataset folder."""
    folder = check_folder(root, what)
    found: list[Path] = []
    seen = 0
    for parent, dirs, files in os.walk(folder, followlinks=False):
        seen += len(dirs) + len(files)
        if seen > max_entries:
            raise InputError(f"{what} holds more than {max_entries:,} files and folders; point to the data "
                             "folder itself", source=str(folder))
        dirs.sort()
        for name in files:
            path = Path(parent) / name
            try:
                if stat.S_ISREG(path.stat().st_mode):
                    found.append(path)
            except OSError:
                continue  # a dangling or looping link inside: not a data file
    return sorted(found)


def _check_path(path: str | os.PathLike[str], what: str) -> Path:
    return check_file(path, what)


def _line_of(data: bytes | str, offset: int) -> int:
    newline = b"\n" if isinstance(data, bytes) else "\n"
    return data.count(newline, 0, offset) + 1  # type: ignore[arg-type]


def decode_text(raw: bytes, source: str, what: str = "file") -> str:
    """``raw`` as UTF-8 text (a BOM is dropped); a pickle or non-UTF-8 bytes are an
    ``InputError`` naming the file and the line of the first bad byte."""
    if len(raw) >= 2 and raw[0] == 0x80 and raw[1] in PICKLE_PROTOCOLS:
        raise InputError(f"{what} looks like a Python pickle; incanon never loads pickles, give JSON",
                         source=source)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{what} is not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start})",
                         source=source, where=f"line {_line_of(raw, exc.start)}") from None
    nul = raw.find(b"\x00")
    if nul >= 0:
        # No text format incanon reads holds NUL; one means a binary or UTF-16 file, or damage,
        # and would be cut or carried silently by the code that later sees it.
        raise InputError(f"{what} holds a NUL byte (offset {nul}); expected UTF-8 text (a UTF-16 or binary "
                         "file?)", source=source, where=f"line {_line_of(raw, nul)}")
    return text


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


class _Duplicate(ValueError):
    """A JSON object names ``key`` twice; ``offset`` is where the second one is, once found."""

    def __init__(self, key: str):
        super().__init__(key)
        self.key = key
        self.offset: int | None = None


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _Duplicate(key)
            seen.add(key)
    return result


def _duplicate_offset(text: str) -> int | None:
    """Where the first duplicate key of ``text`` is: decoded again with the pure-Python scanner,
    which hands each object its start offset (the fast C decoder does not)."""
    decoder = json.JSONDecoder(object_pairs_hook=_no_duplicates)

    def parse_object(s_and_end: tuple[str, int], *args: Any) -> Any:
        try:
            return JSONObject(s_and_end, *args)
        except _Duplicate as exc:
            if exc.offset is None:  # the innermost object: the second mention of the key in it
                s, start = s_and_end
                literals = {json.dumps(exc.key), json.dumps(exc.key, ensure_ascii=False)}
                pattern = "|".join(re.escape(lit) for lit in literals)
                hits = [m.start() for m in re.finditer(rf"(?:{pattern})\s*:", s[start:])]
                exc.offset = start + hits[1] if len(hits) > 1 else start
            raise

    decoder.parse_object = parse_object
    decoder.scan_once = py_make_scanner(decoder)
    try:
        decoder.decode(text)
    except _Duplicate as exc:
        return exc.offset
    except (ValueError, RecursionError):
        return None
    return None


# A \uD800-\uDFFF escape: only valid as a high-low pair; alone it decodes to a str that cannot
# be written anywhere (UTF-8 refuses it), so it fails far from the file that held it.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_LONE_SURROGATE = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
                             r"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}")


def _has_lone_surrogate(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


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
        value = json.loads(text, parse_int=_parse_int, parse_float=_parse_float, parse_constant=_parse_constant,
                           object_pairs_hook=_no_duplicates)
    except _Duplicate as exc:
        shown = exc.key if len(exc.key) <= 60 else exc.key[:57] + "..."
        raise fail(f"duplicate key {json.dumps(shown)} in one object (JSON keeps only the last; give each once)",
                   _duplicate_offset(text)) from None
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
    if _SURROGATE_ESCAPE.search(text) and _has_lone_surrogate(value):
        lone = _LONE_SURROGATE.search(text)
        raise fail("a string holds a lone UTF-16 surrogate escape (\\ud800-\\udfff without its pair): not text",
                   lone.start() if lone else None)
    return value


def read_json(path: str | os.PathLike[str], what: str = "file") -> Any:
    """The JSON document in ``path``, read with :func:`read_text` and :func:`parse_json`."""
    text = read_text(path, what)
    return parse_json(text, str(Path(path).expanduser()))
