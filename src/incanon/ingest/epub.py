"""EPUB books: the spine's documents in reading order, as plain text, and the package metadata.

An EPUB is a zip archive: ``META-INF/container.xml`` names the package document (OPF), whose
``<metadata>`` gives the title and author and whose ``<spine>`` lists the content documents in
reading order. Each XHTML document becomes text (block elements end paragraphs; scripts and
styles are dropped). A document's first ``h1``–``h3`` is its title; documents with fewer than
``min_words`` words (cover, title page, copyright) are not chapters. Read with the standard
library only (``zipfile``, ``xml.etree``, ``html.parser``): no third-party parser is needed for
this subset, and DRM-protected books are refused with the reason.
"""

from __future__ import annotations

import posixpath
import re
import xml.etree.ElementTree as ET
import zipfile
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

from incanon.errors import InputError

_NS = {"c": "urn:oasis:names:tc:opendocument:xmlns:container", "opf": "http://www.idpf.org/2007/opf",
       "dc": "http://purl.org/dc/elements/1.1/"}
_BLOCK = {"p", "div", "br", "h1", "h2", "h3", "h4", "h5", "h6", "li", "blockquote", "section", "tr", "hr"}


@dataclass(frozen=True)
class EpubChapter:
    title: str
    text: str
    line: int
    """1-based position of the document in the spine (EPUB has no lines)."""


@dataclass
class EpubBook:
    title: str = ""
    author: str = ""
    chapters: list[EpubChapter] = field(default_factory=list)


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.title = ""
        self._skip = 0
        self._heading: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style", "head"):
            self._skip += 1
        elif tag in ("h1", "h2", "h3") and not self.title and self._heading is None:
            self._heading = []
        if tag in _BLOCK:
            self.parts.append("\n\n")

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

    def text(self) -> str:
        raw = "".join(self.parts)
        paragraphs = [" ".join(p.split()) for p in re.split(r"\n\s*\n", raw)]
        return "\n\n".join(p for p in paragraphs if p)


def read_epub(path: Path, *, min_words: int = 80) -> EpubBook:
    """The chapters and metadata of the EPUB at ``path`` (``InputError`` naming what is wrong)."""
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise InputError(f"not an EPUB (a zip archive was expected: {exc})", source=str(path)) from None
    with archive:
        names = set(archive.namelist())
        if "META-INF/encryption.xml" in names:
            raise InputError("the EPUB is encrypted (DRM); only DRM-free books can be read", source=str(path))
        try:
            container = ET.fromstring(archive.read("META-INF/container.xml"))
            rootfile = container.find(".//c:rootfile", _NS)
            opf_path = rootfile.get("full-path") if rootfile is not None else None
            if not opf_path:
                raise InputError("META-INF/container.xml names no package document", source=str(path))
            opf = ET.fromstring(archive.read(opf_path))
        except KeyError as exc:
            raise InputError(f"missing {exc.args[0]} inside the EPUB", source=str(path)) from None
        except ET.ParseError as exc:
            raise InputError(f"unreadable XML inside the EPUB ({exc})", source=str(path)) from None
        book = EpubBook(title=(opf.findtext(".//dc:title", "", _NS) or "").strip(),
                        author=(opf.findtext(".//dc:creator", "", _NS) or "").strip())
        base = posixpath.dirname(opf_path)
        manifest = {item.get("id"): item.get("href") for item in opf.iterfind(".//opf:manifest/opf:item", _NS)}
        for k, ref in enumerate(opf.iterfind(".//opf:spine/opf:itemref", _NS), 1):
            href = manifest.get(ref.get("idref"))
            if not href:
                continue
            member = posixpath.normpath(posixpath.join(base, href))
            if member not in names:
                raise InputError(f"the spine names {member}, which the archive does not hold", source=str(path))
            parser = _Text()
            parser.feed(archive.read(member).decode("utf-8", errors="replace"))
            text = parser.text()
            if len(text.split()) < min_words:
                continue
            title = parser.title
            if title and text.startswith(title):
                text = text[len(title):].lstrip()
            book.chapters.append(EpubChapter(title or f"Part {k}", text, k))
    if not book.chapters:
        raise InputError(f"the EPUB's spine holds no document of {min_words} words or more", source=str(path))
    return book


__all__ = ["EpubBook", "EpubChapter", "read_epub"]
