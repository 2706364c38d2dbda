"""One book file read whole: decoded whatever its encoding, Project Gutenberg's header and licence
left out, and its title and author found in the text — the first step every reader of books shares.

``canon build`` (:func:`incanon.ingest.reader.read_book`) goes on to find chapters; CoSER's
curation keeps the whole story text; ``graph build`` and TimeChara's index read corpus and chapter
files through :func:`read_book_text` so that a Latin-1 or UTF-16 file is read the same way
everywhere. No reader of a user's book decodes it any other way.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from incanon.errors import InputError
from incanon.ingest.encoding import read_book_text
from incanon.ingest.gutenberg import header_title, strip_gutenberg
from incanon.ingest.html_book import HTML_SUFFIXES, html_text, looks_like_html
from incanon.ingest.titlepage import find_title_page

_MD_SUFFIXES = (".md", ".markdown")
_MD_COMMENT = re.compile(r"^[ \t]*<!--.*?-->[ \t]*\n?", re.M)
_MD_TITLE = re.compile(r"\s*#[ \t]+(.+?)[ \t]*#*[ \t]*\n")
_NOT_A_TITLE = re.compile(r"(?i)(?:book|part|volume|chapter)\b")


@dataclass
class BookFile:
    """A book file's story text and what the file says about itself."""

    path: Path
    text: str
    """The story: the decoded file without a Gutenberg header and licence (and, for markdown,
    without authors' ``<!-- -->`` notes and the ``# Title`` line)."""
    decoded: str
    """The whole file as decoded (what the title search reads)."""
    title: str = ""
    author: str = ""
    page_title: str = ""
    """An HTML file's ``<title>``: the last resort for the book's title."""
    notes: list[str] = field(default_factory=list)
    """What was left out or assumed (the encoding, the licence's word count), each naming the file."""

    @property
    def is_markdown(self) -> bool:
        return self.path.suffix.lower() in _MD_SUFFIXES


def named_in_text(decoded: str, story: str, first_heading: int | None = None) -> tuple[str, str, str]:
    """(title, author, where it was found) of a text without metadata: its "Project Gutenberg EBook
    of" line in ``decoded``, else the title page (the lines of ``story`` before ``first_heading``);
    empty strings when neither names the book."""
    title, author = header_title(decoded)
    if title:
        return title, author, "its Project Gutenberg line"
    title, author = find_title_page(story[:first_heading])
    return title, author, "its title page"


def read_book_file(path: str | os.PathLike[str], *, markdown: bool = True, what: str = "book file") -> BookFile:
    """Read the book file ``path``: decoded (:func:`~incanon.ingest.encoding.read_book_text`, a
    note when not UTF-8), a Gutenberg e-text's header and licence left out with its title and
    author kept, and for a markdown file (when ``markdown``) authors' notes and the ``# Title``
    line taken out, the title kept. An empty file is an ``InputError`` naming it; ``what`` is
    how errors name the file ("book file", "corpus file")."""
    source = Path(path)
    read = read_book_text(source, what=what)
    book = BookFile(source, read.text, read.text)
    if read.note:
        book.notes.append(f"{source.name}: {read.note}")
    if not read.text.strip():
        raise InputError(f"the {what} is empty", source=str(source))
    if source.suffix.lower() in HTML_SUFFIXES or looks_like_html(read.text):
        # An HTML book is read as its text, never its tags (html_book's docstring says how).
        html = html_text(read.text)
        if not html.text.strip():
            raise InputError("the HTML file holds no text (an HTML book with paragraphs was expected)",
                             source=str(source))
        book.text = book.decoded = html.text
        book.page_title = html.title
        book.notes.append(f"{source.name}: read as HTML" + (f"; {html.footnotes:,} footnote(s) left out of the "
                                                             "chapters" if html.footnotes else ""))
    gut = strip_gutenberg(book.decoded)
    if gut.removed_words:
        book.notes.append(f"{source.name}: Project Gutenberg header and licence left out "
                          f"({gut.removed_words:,} words)")
        book.title, book.author = gut.title, gut.author
    body = gut.body
    if markdown and book.is_markdown and not book.page_title:
        body = _MD_COMMENT.sub("", body)
        first = _MD_TITLE.match(body)
        if first and not _NOT_A_TITLE.match(first.group(1)):
            book.title = book.title or first.group(1).strip()
            body = body[first.end():]
    book.text = body
    return book


__all__ = ["BookFile", "named_in_text", "read_book_file", "read_book_text"]
