"""Read a user's book, whatever its form, into titled chapters: one reader for every builder.

Accepted:

* a plain-text file (``.txt`` or anything not listed below), in UTF-8, UTF-16 with a byte order
  mark, or cp1252 / Latin-1 (:mod:`incanon.ingest.encoding`; a note says which when not UTF-8);
* a Project Gutenberg e-text: its header and licence are left out, and its title and author come
  from the header's metadata (:mod:`incanon.ingest.gutenberg`); a copy without the header is
  named by its "Project Gutenberg EBook of" line or by its title page (:mod:`incanon.ingest.titlepage`);
* a markdown file: ``<!-- scene b-c-s -->`` markers, when present, are the author's own scenes
  and are kept (:func:`incanon.ingest.markdown_book.parse_markdown_book` reads it); otherwise it
  is read as text, its ``#`` headings being chapter headings;
* an EPUB (:mod:`incanon.ingest.epub`): the spine's documents in reading order;
* a folder, or several files: the files in natural order (``ch2`` before ``ch10``), each file
  one chapter unless it holds chapter headings of its own.

Chapters are found by the project's one chapter detector (:mod:`incanon.ingest.chapters`); what
it noticed (front matter left out, a contents list that disagrees with the headings, numbering that
jumps) goes to :attr:`BookText.notes`, which ``canon build`` prints. A book over
:data:`~incanon.ingest.encoding.MAX_BOOK_MB` megabytes is refused before it is read.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from incanon.errors import InputError, NotFoundError
from incanon.ingest.chapters import TextChapter, scan_chapters
from incanon.ingest.bookfile import BookFile, named_in_text, read_book_file
from incanon.ingest.encoding import MAX_BOOK_BYTES, too_big
from incanon.ingest.markdown_book import parse_markdown_book
from incanon.ingest.scripts import text_size
from incanon.reading import check_file

_TEXT_SUFFIXES = {".txt", ".text", ".md", ".markdown", "", ".html", ".htm", ".xhtml"}
_SCENE_MARKER = re.compile(r"^\s*<!--\s*scene\b", re.I | re.M)


@dataclass(frozen=True)
class ReadChapter(TextChapter):
    """A chapter and, when the author marked them, its scenes' texts (``part``: the heading of the
    part, book or act it is in, ``PART ONE--The Old Buccaneer``, when the book has them)."""

    source: str = ""
    """The file it came from."""
    scenes: tuple[str, ...] = ()
    """The author's scenes (markdown scene markers), in order; empty when not marked."""


@dataclass
class BookText:
    """A book read from one or more files."""

    title: str
    author: str = ""
    sources: list[str] = field(default_factory=list)
    chapters: list[ReadChapter] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """What the reader left out or assumed (a Gutenberg licence, a file without chapters)."""

    @property
    def digest(self) -> str:
        """Identity of the text read (changes when any chapter does)."""
        h = hashlib.sha256()
        for c in self.chapters:
            h.update(f"{c.book}-{c.number}\x00{c.title}\x00{c.text}\x00{'|'.join(c.scenes)}\x01".encode())
        return h.hexdigest()

    @property
    def words(self) -> int:
        """Size in words, Chinese and Japanese counted by character
        (:func:`~incanon.ingest.scripts.text_size`)."""
        return sum(text_size(c.text) for c in self.chapters)


def _natural(path: Path) -> list[object]:
    return [int(p) if p.isdigit() else p.lower() for p in re.split(r"(\d+)", path.name)]


def _files(paths: list[Path]) -> list[Path]:
    files: list[Path] = []
    for path in paths:
        if not path.exists() and not path.is_symlink():
            raise NotFoundError(f"book {path} does not exist")
        if path.is_dir():
            for p in path.iterdir():  # a symlink loop or a broken link is named, never skipped
                if p.is_symlink() and not p.exists() and not p.name.startswith("."):
                    raise InputError("is a symlink that reaches no file (a loop, or its target is missing)",
                                     source=str(p))
            inside = sorted((p for p in path.iterdir() if p.is_file() and not p.name.startswith(".")
                             and p.suffix.lower() in _TEXT_SUFFIXES | {".epub"}), key=_natural)
            if not inside:
                raise InputError("the folder holds no .txt, .md, .html or .epub file", source=str(path))
            files += inside
        else:
            files.append(check_file(path, "book file"))
    total = sum(f.stat().st_size for f in files)
    if total > MAX_BOOK_BYTES:
        raise too_big(total, ", ".join(str(f) for f in files[:3]) + (" ..." if len(files) > 3 else ""))
    return files


def _markdown_chapters(text: str, source: str) -> tuple[str, list[ReadChapter]]:
    book = parse_markdown_book(text, source=source)
    chapters = [ReadChapter(book.number, c.number, c.title, "\n\n".join(s.text for s in c.scenes), c.line,
                            source=source, scenes=tuple(s.text for s in c.scenes)) for c in book.chapters]
    return book.title or "", chapters


def _name_book(book: "BookText", path: Path, read: BookFile, first_heading: int | None) -> None:
    """Title and author of a text without metadata (:func:`~incanon.ingest.bookfile.named_in_text`)."""
    if book.title and book.author:
        return
    title, author, how = named_in_text(read.decoded, read.text, first_heading)
    if title and not book.title:
        book.title, book.author = title, book.author or author
        book.notes.append(f"{path.name}: title {title!r}" + (f" by {author}" if author else "") + f" from {how}")
    elif author and not book.author:
        book.author = author


def _epub_chapters(path: Path, book: "BookText") -> list[ReadChapter]:
    from incanon.ingest.epub import read_epub

    epub = read_epub(path)
    book.title = book.title or epub.title
    book.author = book.author or epub.author
    book.notes += [f"{path.name}: {note}" for note in epub.notes]
    return [ReadChapter(c.book, 0, c.title, c.text, c.line, part=c.part, source=str(path)) for c in epub.chapters]


def _one_file(path: Path, book: "BookText", alone: bool) -> list[ReadChapter]:
    source = str(path)
    if path.suffix.lower() == ".epub":
        return _epub_chapters(path, book)
    read = read_book_file(path)
    book.notes += read.notes
    if read.is_markdown and _SCENE_MARKER.search(read.decoded):
        title, chapters = _markdown_chapters(read.decoded, source)
        book.title = book.title or title
        return chapters
    book.title = book.title or read.title
    book.author = book.author or read.author
    body = read.text
    scan = scan_chapters(body)
    if not alone and not scan.headings:
        # A chapter file without a heading: the file is the chapter, its name the title.
        title = re.sub(r"^\d+[\s._-]*", "", path.stem).replace("_", " ").strip() or path.stem
        return [ReadChapter(1, 0, title, body.strip(), 1, source=source)]
    if alone:
        _name_book(book, path, read, scan.headings[0].start if scan.headings else None)
        if not book.title and read.page_title:
            from incanon.ingest.epub import clean_title

            book.title, named_author = clean_title(read.page_title)
            book.author = book.author or named_author
            book.notes.append(f"{path.name}: title {book.title!r} from its HTML <title>")
    book.notes += [f"{path.name}: {note}" for note in scan.notes]
    if alone and len(scan.chapters) == 1 and not scan.headings:
        book.notes.append(f"{path.name}: no chapter heading found; the whole text is one chapter")
    return [ReadChapter(c.book, c.number, c.title, c.text, c.line, c.heading, c.part, source=source)
            for c in scan.chapters]


def read_book(paths: list[str | os.PathLike[str]], *, title: str | None = None, author: str | None = None) -> BookText:
    """The book in ``paths`` (files or one folder), chapters numbered in reading order.

    Raises ``InputError`` naming the file for what cannot be read, and when no text is found.
    """
    files = _files([Path(p) for p in paths])
    if not files:
        raise InputError("no book file given")
    book = BookText(title=title or "", author=author or "", sources=[str(f) for f in files])
    chapters: list[ReadChapter] = []
    for path in files:
        chapters += _one_file(path, book, alone=len(files) == 1)
    # Renumber: books as the files and parts give them, chapters in order within each book.
    numbered: list[ReadChapter] = []
    last_book, n = None, 0
    for c in chapters:
        if c.book != last_book:
            last_book, n = c.book, 0
        n += 1
        numbered.append(ReadChapter(c.book, n, c.title, c.text, c.line, c.heading, c.part, source=c.source,
                                    scenes=c.scenes))
    if not any(c.text.strip() for c in numbered):
        raise InputError("no text found in the book", source=", ".join(book.sources))
    book.chapters = [c for c in numbered if c.text.strip()]
    if not book.title:
        book.title = files[0].stem.replace("_", " ") if len(files) == 1 else files[0].parent.name
        book.notes.append(f"no title in the text: named {book.title!r} after the file (give --title)")
    return book


__all__ = ["BookText", "ReadChapter", "read_book"]
