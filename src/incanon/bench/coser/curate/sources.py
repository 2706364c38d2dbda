"""Books to curate: JSONL records ``{title, author, content}`` or plain text files."""

from __future__ import annotations

import hashlib
import logging
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from incanon.errors import InputError, NotFoundError
from incanon.ingest.bookfile import named_in_text, read_book_file
from incanon.logs import NOTICE
from incanon.reading import check_file


log = logging.getLogger(__name__)


@dataclass(frozen=True)
class BookSource:
    """One book's text and identity."""

    title: str
    content: str
    author: str = ""
    source: str = ""
    """The file (and line, for JSONL) it came from."""

    @property
    def slug(self) -> str:
        """File-system and canon-store safe id: lower-case words joined by hyphens."""
        slug = re.sub(r"[^a-z0-9]+", "-", self.title.casefold()).strip("-")
        return slug or "book-" + self.digest[:8]

    @property
    def file_title(self) -> str:
        """The title as a file name (CoSER names per-book files by title)."""
        return re.sub(r"[/\\\x00-\x1f]", "-", self.title).strip(". ") or self.slug

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.content.encode("utf-8")).hexdigest()


def _jsonl(path: Path) -> list[BookSource]:
    books = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        where = f"line {lineno}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"malformed JSON: {exc.msg}", source=str(path), where=where) from None
        if not isinstance(record, dict):
            raise InputError("expected an object {title, author, content}", source=str(path), where=where)
        for key in ("title", "content"):
            if not isinstance(record.get(key), str) or not record[key].strip():
                raise InputError(f"field {key!r} must be a non-empty string", source=str(path), where=where)
        author = record.get("author") or ""
        if not isinstance(author, str):
            raise InputError("field 'author' must be a string", source=str(path), where=where)
        books.append(BookSource(record["title"].strip(), record["content"], author.strip(), f"{path}:{lineno}"))
    if not books:
        raise InputError("no book records (expected one JSON object per line)", source=str(path))
    return books


def _md_title(text: str) -> str:
    # A markdown book's "# Book 2: Title" line names it (the reader keeps such a line as a heading).
    for line in text.splitlines()[:20]:
        m = re.match(r"^#\s+(.+?)\s*#*\s*$", line)
        if m:
            return re.sub(r"^(?:book|part)\s+\w+\s*[:.\-–—]\s*", "", m.group(1), flags=re.I).strip()
    return ""


def read_books(paths: list[str | os.PathLike[str]], *, author: str = "") -> list[BookSource]:
    """Books from files: ``.jsonl`` (one book per line) or anything else read as plain text."""
    books: list[BookSource] = []
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise NotFoundError(f"book file {path} does not exist")
        if path.is_dir():
            raise InputError("is a folder; give the book files themselves", source=str(path))
        check_file(path, "book file")  # a FIFO would block the read; a symlink loop, one line
        if path.suffix.lower() == ".jsonl":
            books.extend(_jsonl(path))
            continue
        # The project's one book-file reader: any encoding, Gutenberg header and licence out,
        # authors' notes and the "# Title" line of a markdown book out.
        read = read_book_file(path)
        for note in read.notes:
            log.log(NOTICE, "%s", note)
        if not read.text.strip():
            raise InputError("the file holds no story text", source=str(path))
        found_author = read.author
        title = read.title or _md_title(read.text)
        if not title:
            title, found_author, how = named_in_text(read.decoded, read.text)
            if title:
                log.log(NOTICE, "%s: title %r from %s", path.name, title, how)
        if not title:
            title = path.stem.replace("_", " ")
            log.log(NOTICE, "%s: no title in the text: named %r after the file", path.name, title)
        books.append(BookSource(title, read.text, author or found_author or read.author, str(path)))
    titles = [b.slug for b in books]
    dup = next((t for t in titles if titles.count(t) > 1), None)
    if dup:
        raise InputError(f"two books share the title {dup!r}; give each book a distinct title")
    return books
