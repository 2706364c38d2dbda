"""EPUB books: the spine's documents in reading order, as plain text, and the package metadata.

An EPUB is a zip archive: ``META-INF/container.xml`` names the package document (OPF), whose
``<metadata>`` gives the title and author and whose ``<spine>`` lists the content documents in
reading order (hrefs are URLs: ``Chapter%201.xhtml`` is ``Chapter 1.xhtml``; a document listed
twice is read once). Each XHTML document becomes text (block elements end paragraphs; scripts and
styles are dropped). Read with the standard library only (``zipfile``, ``xml.etree``,
``html.parser``): no third-party parser is needed for this subset, and DRM-protected books are
refused with the reason.

Chapters:

* most EPUBs hold one chapter per document: its title is the heading that opens it (an ``h1``–
  ``h3``, or a ``CHAPTER I`` line and the title after it, found by the chapter detector);
* a document holding several chapters is split: when the whole book is one or two documents
  (pandoc's default), at its ``h1``/``h2`` headings and every heading the chapter detector knows;
  otherwise at two or more ``CHAPTER N`` headings inside it;
* documents of fewer than ``min_words`` words (cover, title page, copyright; Chinese and Japanese
  counted by character, :func:`~incanon.ingest.scripts.text_size`) are not chapters, and
  a short document titled ``Part Two`` opens a new part; a document holding only a contents list
  is front matter. What is left out is said in :attr:`EpubBook.notes`.

Hostile archives are bounded: every document is inflated through a bounded read (the sizes a zip
declares are not trusted), at most :data:`~incanon.ingest.encoding.MAX_BOOK_MB` megabytes per
document and in total, and going over is an ``InputError`` naming the file and the entry.
"""

from __future__ import annotations

import posixpath
import re
import xml.etree.ElementTree as ET
import zipfile
import zlib
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

from incanon.errors import InputError
from incanon.ingest.chapters import scan_chapters
from incanon.ingest.encoding import MAX_BOOK_BYTES
from incanon.ingest.gutenberg import cut_licence, header_title, strip_gutenberg
from incanon.ingest.heading_forms import FORMS
from incanon.ingest.html_book import html_text
from incanon.ingest.scripts import text_size

_NS = {"c": "urn:oasis:names:tc:opendocument:xmlns:container", "opf": "http://www.idpf.org/2007/opf",
       "dc": "http://purl.org/dc/elements/1.1/"}
_BLOCK = {"p", "div", "br", "h1", "h2", "h3", "h4", "h5", "h6", "li", "blockquote", "section", "tr", "hr"}
_SITE = re.compile(r"[^\S\n]*[|–—-][^\S\n]*(?:Project Gutenberg|Standard ?Ebooks|Wikisource|Internet Archive|"
                   r"(?:www\.)?gutenberg\.org)[^\S\n]*$", re.I)
_PART = FORMS[3].pattern
_SPLIT_FORMS = {"keyword", "runin"}
_CONTENTS = re.compile(r"^(?:## )?(?:table of )?contents\.?$", re.I | re.M)


@dataclass(frozen=True)
class EpubChapter:
    title: str
    text: str
    line: int
    """1-based position of the document in the spine (EPUB has no lines)."""
    book: int = 1
    """The part (book) it is in: 1 unless a ``Part Two`` document came before it."""
    part: str = ""


@dataclass
class EpubBook:
    title: str = ""
    author: str = ""
    chapters: list[EpubChapter] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """What was left out (short documents, front matter)."""


class _Text(HTMLParser):
    """A document's text; with ``mark``, its h1/h2 headings become ``## `` lines (for splitting)."""

    def __init__(self, mark: bool = False) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.title = ""
        self.mark = mark
        self._skip = 0
        self._heading: list[str] | None = None
        self._seen_text = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style", "head"):
            self._skip += 1
        elif tag in ("h1", "h2", "h3") and not self.title and not self._seen_text and self._heading is None:
            self._heading = []  # the document's title: a heading before any text
        if tag in _BLOCK:
            self.parts.append("\n\n")
        if self.mark and tag in ("h1", "h2"):
            self.parts.append("## ")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "head"):
            self._skip = max(0, self._skip - 1)
        elif tag in ("h1", "h2", "h3") and self._heading is not None:
            self.title = " ".join("".join(self._heading).split())
            self._heading = None
        if tag in _BLOCK:
            self.parts.append("\n\n")

    def handle_data(self, data: str) -> None:
        if self._skip:
            return
        self.parts.append(data)
        if self._heading is not None:
            self._heading.append(data)
        elif data.strip():
            self._seen_text = True

    def text(self) -> str:
        raw = "".join(self.parts)
        paragraphs = [" ".join(p.split()) for p in re.split(r"\n\s*\n", raw)]
        paragraphs = [p for p in paragraphs if p and p != "##"]
        out: list[str] = []
        for p in paragraphs:
            if out and re.fullmatch(r"[A-Z]", out[-1]) and p[:1].isupper():
                out[-1] += p  # a drop capital set apart ("A" / "LICE was beginning..."): one word again
            else:
                out.append(p)
        return "\n\n".join(out)


def clean_title(title: str) -> tuple[str, str]:
    """(title, author) from a package or page title: a site suffix (`` | Project Gutenberg``)
    and a "The Project Gutenberg eBook of X, by Y" wrapper are taken off."""
    title = " ".join(title.split())
    bare = _SITE.sub("", title)
    named, author = header_title(bare)
    if named:
        return named, author
    if bare != title and " by " in bare:  # gutenberg.org pages: "Title by Author | Project Gutenberg"
        head, _, tail = bare.rpartition(" by ")
        return head.strip(), tail.strip()
    return bare, ""


class _Budget:
    """Bytes the archive may still inflate; every member is read through :meth:`read`."""

    def __init__(self, archive: zipfile.ZipFile, source: str, limit: int) -> None:
        self.archive, self.source, self.limit, self.left = archive, source, limit, limit

    def read(self, name: str) -> bytes:
        """Member ``name`` inflated through a bounded read (``KeyError`` when absent)."""
        info = self.archive.getinfo(name)
        cap = min(self.limit, self.left)
        with self.archive.open(info) as member:
            data = member.read(cap + 1)
        if len(data) > cap:
            raise InputError(f"{name} inside the EPUB inflates past the {self.limit / 2**20:g} MB a book may hold"
                             + (" (with the documents before it)" if cap < self.limit else "")
                             + ": a zip bomb, or not a book", source=self.source)
        self.left -= len(data)
        return data


def _package(budget: _Budget, names: set[str]) -> tuple[str, ET.Element]:
    """The package document's path and parsed XML."""
    source = budget.source
    if "META-INF/encryption.xml" in names:
        raise InputError("the EPUB is encrypted (DRM); only DRM-free books can be read", source=source)
    try:
        container = ET.fromstring(budget.read("META-INF/container.xml"))
        rootfile = container.find(".//c:rootfile", _NS)
        opf_path = rootfile.get("full-path") if rootfile is not None else None
        if not opf_path:
            raise InputError("META-INF/container.xml names no package document", source=source)
        return opf_path, ET.fromstring(budget.read(opf_path))
    except KeyError as exc:
        raise InputError(f"missing {exc.args[0]} inside the EPUB", source=source) from None
    except ET.ParseError as exc:
        raise InputError(f"unreadable XML inside the EPUB ({exc})", source=source) from None


def _spine(budget: _Budget, opf: ET.Element, opf_path: str, names: set[str]) -> list[tuple[int, str, str]]:
    """(position, member, XHTML) of every spine document, in reading order."""
    base = posixpath.dirname(opf_path)
    manifest = {item.get("id"): item.get("href") for item in opf.iterfind(".//opf:manifest/opf:item", _NS)}
    docs = []
    seen: set[str] = set()
    for k, ref in enumerate(opf.iterfind(".//opf:spine/opf:itemref", _NS), 1):
        href = manifest.get(ref.get("idref"))
        if not href:
            continue
        # hrefs are URLs: "Chapter%201.xhtml" names "Chapter 1.xhtml", and a fragment is no file.
        path = unquote(href.split("#", 1)[0])
        member = posixpath.normpath(posixpath.join(base, path))
        if member not in names and posixpath.normpath(posixpath.join(base, href)) in names:
            member = posixpath.normpath(posixpath.join(base, href))  # a file whose name holds a literal %
        if member not in names:
            raise InputError(f"the spine names {member}, which the archive does not hold", source=budget.source)
        if member in seen:
            continue  # a spine listing one document twice: it is read once
        seen.add(member)
        docs.append((k, member, budget.read(member).decode("utf-8", errors="replace")))
    return docs


@dataclass
class _Progress:
    """What reading the spine has reached: the current part, and what was left out."""

    book: int = 1
    part: str = ""
    short: int = 0
    """Documents under ``min_words`` words."""
    licence: int = 0
    """Words of Project Gutenberg header and licence left out."""
    footnotes: int = 0
    """Footnotes left out of a one-document book."""


def _chapters_of(book: EpubBook, k: int, html: str, *, single: bool, min_words: int, state: _Progress) -> None:
    """The chapters of spine document ``k`` (see the module docstring), added to ``book``."""
    parser = _Text(mark=single)
    parser.feed(html)
    text = parser.text()
    if single:
        # The whole book in one document (pandoc's, or Gutenberg's HTML zipped): read as an HTML
        # book is, its chapter-level headings marked and its title page, page numbers and
        # footnotes not taken for chapters.
        whole = html_text(html)
        text = whole.text
        state.footnotes += whole.footnotes
    gut = strip_gutenberg(text)  # Project Gutenberg EPUBs carry the e-text's header and licence
    text, cut = cut_licence(gut.body.strip())
    if gut.removed_words or cut:
        state.licence += gut.removed_words + cut
    title = parser.title
    if text_size(text) < min_words:
        if title and _PART.match(title):
            state.book += 1 if book.chapters else 0
            state.part = title
        elif text.strip():
            state.short += 1
        return
    scan = scan_chapters(text, min_opening_words=min_words)
    headed = [h for h in scan.headings if h.kind == "chapter"]
    split = [h for h in headed if single or h.form in _SPLIT_FORMS]
    part_no, part = state.book, state.part
    if len(split) >= 2:
        book.notes += [f"spine document {k}: {note}" for note in scan.notes]
        for c in scan.chapters:
            book.chapters.append(EpubChapter(c.title or title or f"Part {k}", c.text, k, part_no + c.book - 1,
                                             c.part or part))
        return
    if not split and _CONTENTS.search(text):
        book.notes.append(f"spine document {k} holds a contents list and no chapter: front matter, left out")
        return
    if not title and headed and scan.chapters and not text[:headed[0].start].strip():
        # The document opens with its heading ("CHAPTER I" / "Down the Rabbit-Hole"): one chapter,
        # whatever weaker headings (an ALL-CAPS line) follow inside it.
        first = scan.chapters[0]
        rest = text[scan.headings[1].start:] if len(scan.headings) > 1 else ""
        book.notes += [f"spine document {k}: {note}" for note in scan.notes]
        title, text = first.title, (first.text + "\n\n" + rest).strip()
    elif title and text.startswith(title):
        text = text[len(title):].lstrip()
    book.chapters.append(EpubChapter(title or f"Part {k}", text, k, part_no, part))


def read_epub(path: Path, *, min_words: int = 80, max_bytes: int = MAX_BOOK_BYTES) -> EpubBook:
    """The chapters and metadata of the EPUB at ``path`` (``InputError`` naming what is wrong)."""
    source = str(path)
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise InputError(f"not an EPUB (a zip archive was expected: {exc})", source=source) from None
    with archive:
        budget = _Budget(archive, source, max_bytes)
        names = set(archive.namelist())
        try:
            opf_path, opf = _package(budget, names)
            docs = _spine(budget, opf, opf_path, names)
        except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError) as exc:
            # A damaged member, one whose declared size or checksum lies, or a compression method
            # zipfile cannot read (it raises NotImplementedError for those).
            raise InputError(f"a document inside the EPUB cannot be inflated ({exc})", source=source) from None
    title, author = clean_title(opf.findtext(".//dc:title", "", _NS) or "")
    book = EpubBook(title=title, author=(opf.findtext(".//dc:creator", "", _NS) or "").strip() or author)
    # pandoc's default: the whole book in one document (beside a title page); split at its headings.
    single = sum(1 for _, _, html in docs if text_size(re.sub(r"<[^>]*>", " ", html)) >= min_words) <= 1
    state = _Progress()
    for k, _, html in docs:
        _chapters_of(book, k, html, single=single, min_words=min_words, state=state)
    if state.short:
        book.notes.append(f"{state.short} spine document(s) of fewer than {min_words} words (cover, title page, "
                          "copyright) are not chapters")
    if state.footnotes:
        book.notes.append(f"{state.footnotes:,} footnote(s) left out of the chapters")
    if state.licence:
        book.notes.append(f"Project Gutenberg header and licence left out ({state.licence:,} words)")
    if not book.chapters:
        raise InputError(f"the EPUB's spine holds no document of {min_words} words or more", source=source)
    return book


__all__ = ["EpubBook", "EpubChapter", "clean_title", "read_epub"]
