"""Reading JSON Lines files the user gave, line by line, through :mod:`incanon.reading`'s checks.

A bad line names its file and line; under :func:`skipping_bad_lines` (the commands'
``--skip-bad-lines``) unreadable lines are counted and passed over instead of refusing the file.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from incanon.errors import InputError
from incanon.reading import PICKLE_PROTOCOLS, check_file, parse_json


@dataclass
class SkippedLines:
    """The unreadable JSON Lines lines skipped under :func:`skipping_bad_lines`, per file."""

    lines: dict[str, list[str]] = field(default_factory=dict)

    @property
    def count(self) -> int:
        """How many lines were skipped in all."""
        return sum(len(v) for v in self.lines.values())

    def add(self, source: str, where: str) -> None:
        """Count ``where`` (``"line N"``) of ``source`` as skipped."""
        self.lines.setdefault(source, []).append(where)

    def summary(self) -> str:
        """One line: how many lines of which files were skipped, naming the first few."""
        parts = []
        for source, wheres in self.lines.items():
            shown = ", ".join(w.removeprefix("line ") for w in wheres[:5]) + (", ..." if len(wheres) > 5 else "")
            parts.append(f"{source} ({len(wheres):,}: line {shown})")
        noun = "line" if self.count == 1 else "lines"
        return f"skipped {self.count:,} bad {noun} (not UTF-8 or not JSON): " + "; ".join(parts)


_skipping: ContextVar[SkippedLines | None] = ContextVar("incanon_skipping_bad_lines", default=None)


@contextmanager
def skipping_bad_lines(enabled: bool = True) -> Iterator[SkippedLines]:
    """Within the block, JSON Lines readers skip lines that are not UTF-8 or not JSON instead of
    refusing the file; the yielded tally counts them (empty when ``enabled`` is false)."""
    tally = SkippedLines()
    token = _skipping.set(tally if enabled else None)
    try:
        yield tally
    finally:
        _skipping.reset(token)


def iter_jsonl_lenient(path: str | os.PathLike[str], what: str = "file") -> Iterator[tuple[str, Any]]:
    """``("line N", value)`` for each non-blank line of a JSON Lines file, streamed line by line
    (bytes decoded per line, so a bad byte names its line). A line that is not UTF-8 or not
    JSON yields its ``InputError`` as the value, for readers that report every bad line at once;
    a missing path, a directory, an empty file or a pickle raises. Under
    :func:`skipping_bad_lines` such lines are counted there and not yielded."""
    source = check_file(path, what)
    tally = _skipping.get()
    with open(source, "rb") as stream:
        head = stream.read(2)
        stream.seek(0)
        if len(head) == 2 and head[0] == 0x80 and head[1] in PICKLE_PROTOCOLS:
            raise InputError(f"{what} looks like a Python pickle; incanon never loads pickles, give JSON Lines",
                             source=str(source))
        if not head:
            raise InputError(f"{what} is empty", source=str(source))
        for number, raw in enumerate(stream, start=1):
            where = f"line {number}"
            try:
                line = raw.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                bad: InputError | None = InputError(f"{what} is not UTF-8 text (byte 0x{raw[exc.start]:02x})",
                                                    source=str(source), where=where)
            else:
                if not line.strip():
                    continue
                try:
                    value = parse_json(line, str(source), where)
                    bad = None
                except InputError as exc:
                    bad = exc
            if bad is None:
                yield where, value
            elif tally is not None:
                tally.add(str(source), where)
            else:
                yield where, bad


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
