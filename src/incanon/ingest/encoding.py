"""Book files as text, whatever their encoding, and a bound on their size.

Books come from everywhere: a Project Gutenberg e-text from before 2010 is ISO-8859-1 (Latin-1),
a file saved on Windows is cp1252 or UTF-16 with a byte order mark. JSON and the project's own
files stay strictly UTF-8 (:func:`incanon.reading.read_text`); only book files are read here:

1. UTF-8, with or without a byte order mark;
2. UTF-16 with a byte order mark (``FF FE`` or ``FE FF``);
3. otherwise cp1252 (Windows-1252, a superset of Latin-1's printable characters), falling back to
   Latin-1 for the five bytes cp1252 leaves undefined.

Every file but UTF-8 gets a note saying which encoding was used, so a wrong guess is visible.
A file holding NUL characters after decoding (UTF-16 without a byte order mark, a binary file)
is refused by name.

A book has a size limit (:data:`MAX_BOOK_MB`): the longest novels are a few megabytes (*War and
Peace* is 3.3 MB), and a file of hundreds of megabytes is a corpus or a mistake, whose reading
would take minutes and gigabytes before anything is shown.
"""

from __future__ import annotations

import codecs
import os
from dataclasses import dataclass
from pathlib import Path

from incanon.errors import InputError
from incanon.reading import check_file

MAX_BOOK_MB = 40
"""Megabytes of text one book (all its files together, an EPUB's inflated documents) may hold."""
MAX_BOOK_BYTES = MAX_BOOK_MB * 1024 * 1024


@dataclass(frozen=True)
class BookFileText:
    """The text of one book file and how it was decoded."""

    text: str
    encoding: str
    """``utf-8``, ``utf-16``, ``cp1252`` or ``latin-1``."""

    @property
    def note(self) -> str:
        """What to tell the user about the encoding (empty for UTF-8)."""
        if self.encoding == "utf-8":
            return ""
        named = {"utf-16": "UTF-16 (byte order mark)", "cp1252": "Windows-1252 (cp1252, a superset of Latin-1)",
                 "latin-1": "Latin-1 (ISO-8859-1)"}[self.encoding]
        return f"not UTF-8: read as {named}"


def too_big(size: int, source: str, what: str = "the book", limit: int = MAX_BOOK_BYTES) -> InputError:
    """The error for a book over ``limit`` bytes: names the limit and how to go on."""
    return InputError(f"{what} is {size / 1024 / 1024:,.1f} MB; a book may hold at most {limit / 1024 / 1024:g} MB of text "
                      "(War and Peace is 3.3 MB). Split it into several books (one file or folder per volume) "
                      "and build each as its own work", source=source)


def decode_book(raw: bytes, source: str) -> BookFileText:
    """``raw`` as text by the rules of the module docstring; NUL characters are an ``InputError``."""
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            text, encoding = raw.decode("utf-16"), "utf-16"
        except UnicodeDecodeError as exc:
            raise InputError(f"the book file starts with a UTF-16 byte order mark but is not UTF-16 ({exc.reason} "
                             f"at offset {exc.start})", source=source) from None
    else:
        try:
            text, encoding = raw.decode("utf-8-sig"), "utf-8"
        except UnicodeDecodeError:
            try:
                text, encoding = raw.decode("cp1252"), "cp1252"
            except UnicodeDecodeError:  # 0x81, 0x8d, 0x8f, 0x90, 0x9d: undefined in cp1252
                text, encoding = raw.decode("latin-1"), "latin-1"
    nul = text.find("\x00")
    if nul >= 0:
        line = text.count("\n", 0, nul) + 1
        raise InputError("the book file holds a NUL character: not a text file (UTF-16 without a byte order mark, "
                         "or a binary file?)", source=source, where=f"line {line}")
    return BookFileText(text, encoding)


def read_book_text(path: str | os.PathLike[str], *, max_bytes: int = MAX_BOOK_BYTES,
                   what: str = "book file") -> BookFileText:
    """The text of the book file ``path`` (see the module docstring); a missing path, a folder,
    a FIFO, a file over ``max_bytes`` or an unreadable one is an ``InputError`` naming it. The
    size is checked before anything is read."""
    source = check_file(path, what)
    size = source.stat().st_size
    if size > max_bytes:
        raise too_big(size, str(source), f"the {what}", max_bytes)
    try:
        raw = Path(source).read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read the {what}: {exc.strerror}", source=str(source)) from None
    return decode_book(raw, str(source))


__all__ = ["MAX_BOOK_BYTES", "MAX_BOOK_MB", "BookFileText", "decode_book", "read_book_text", "too_big"]
