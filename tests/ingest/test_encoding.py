"""Book files in the encodings books come in; JSON stays strictly UTF-8."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from incanon.errors import InputError
from incanon.ingest.encoding import read_book_text
from incanon.ingest.reader import read_book
from incanon.reading import read_text

STORY = "CHAPTER I\n\nThe café by the harbour served crème brûlée to the “keeper”, who paid in coins.\n"


@pytest.mark.parametrize(("raw", "encoding", "note"), [
    (STORY.encode("utf-8"), "utf-8", ""),
    (codecs.BOM_UTF8 + STORY.encode("utf-8"), "utf-8", ""),
    (codecs.BOM_UTF16_LE + STORY.encode("utf-16-le"), "utf-16", "UTF-16"),
    (codecs.BOM_UTF16_BE + STORY.encode("utf-16-be"), "utf-16", "UTF-16"),
    (STORY.encode("cp1252"), "cp1252", "Windows-1252"),
    # Latin-1 bytes cp1252 leaves undefined (0x81): read as Latin-1.
    (STORY.replace("“", '"').replace("”", '"').encode("latin-1") + b"\x81\n", "latin-1", "Latin-1"),
])
def test_book_encodings(tmp_path: Path, raw: bytes, encoding: str, note: str) -> None:
    path = tmp_path / "book.txt"
    path.write_bytes(raw)
    read = read_book_text(path)
    assert read.encoding == encoding and "crème brûlée" in read.text and not read.text.startswith("\ufeff")
    assert (note in read.note) if note else read.note == ""


def test_a_latin1_book_is_read_with_a_note_and_json_stays_strict(tmp_path: Path) -> None:
    path = tmp_path / "old.txt"
    path.write_bytes(STORY.replace("“", '"').replace("”", '"').encode("latin-1"))
    book = read_book([path])
    assert "crème brûlée" in book.chapters[0].text
    assert any("old.txt: not UTF-8: read as Windows-1252" in n for n in book.notes)
    with pytest.raises(InputError, match="not UTF-8"):
        read_text(path)


def test_nul_characters_and_oversized_books_are_refused_by_name(tmp_path: Path) -> None:
    path = tmp_path / "utf16-without-bom.txt"
    path.write_bytes(STORY.encode("utf-16-le"))
    with pytest.raises(InputError, match="utf16-without-bom.txt.*NUL"):
        read_book_text(path)
    big = tmp_path / "big.txt"
    big.write_bytes(b"word " * 300_000)
    with pytest.raises(InputError, match=r"big.txt: the book file is 1.4 MB; a book may hold at most 1 MB.*Split it"):
        read_book_text(big, max_bytes=1024 * 1024)
