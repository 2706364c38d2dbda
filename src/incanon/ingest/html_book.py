"""HTML books (Project Gutenberg's HTML above all): read as text with their structure, never as tags.

Project Gutenberg ships every book as HTML too: ``<h2>`` (sometimes ``<h1>``) chapter headings,
``<p>`` paragraphs, page numbers in ``<span class="pagenum">``, footnotes in ``<div
class="footnote">``, the licence in ``<section id="pg-header">`` and ``id="pg-footer"``. This
module turns such a file into the text the chapter detector reads:

* paragraphs and other blocks become paragraphs separated by blank lines, ``<br>`` a line break
  (verse keeps its lines) and, inside a heading, a space (``CHAPTER I.<br>Loomings`` is one
  heading line);
* the headings of the level that marks chapters (the level among ``h1``–``h3`` used most often,
  twice or more) become ``## Title`` lines, so a chapter titled only by its name (``<h1>Een
  Winterdag op de Noordzee.</h1>``) is a heading; headings of other levels (the book's title
  on its title page, a chapter's subtitle) stay lines of text;
* page numbers, scripts, styles and footnotes are left out (the footnotes are counted, and a
  note says how many); the Gutenberg header and licence stay in the text as lines, for
  :func:`~incanon.ingest.gutenberg.strip_gutenberg` to take out with the book's metadata.

Standard library only (:mod:`html.parser`): no third-party parser is needed for this subset.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser

HTML_SUFFIXES = (".html", ".htm", ".xhtml")
"""File names read as HTML."""

_BLOCK = {"p", "div", "li", "blockquote", "section", "tr", "table", "ul", "ol", "dl", "dd", "dt", "pre", "article",
          "aside", "header", "footer", "figure", "figcaption", "body", "center", "address"}
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_SKIP = {"script", "style", "head", "svg", "math", "noscript"}
_VOID = {"br", "hr", "img", "meta", "link", "input", "col", "area", "base", "wbr", "source"}
# Page numbers and footnotes by their classes: Gutenberg's "pagenum" / "pageno", "footnote(s)",
# "notetext", "fnote"...
_PAGE_CLASS = re.compile(r"\bpage-?(?:num|no)\b|\bpagenum\b", re.I)
_NOTE_CLASS = re.compile(r"\b(?:foot-?notes?|notetext|fnote|endnotes?)\b", re.I)
_TITLE_CLASS = re.compile(r"\b(?:doc-?title|title-?page|book-?title)\b", re.I)


@dataclass
class _Block:
    kind: str
    """``p`` (a paragraph or other block) or ``h`` (a heading)."""
    text: str
    level: int = 0
    title_page: bool = False
    """A heading with a title-page class (``docTitle``): the book's title, not a chapter's."""
    boilerplate: bool = False
    """Inside Project Gutenberg's header or footer."""


@dataclass(frozen=True)
class HtmlText:
    """An HTML document as text."""

    text: str
    """Paragraphs separated by blank lines; chapter headings as ``## Title`` lines."""
    title: str = ""
    """The ``<title>`` element's text."""
    footnotes: int = 0
    """Footnotes left out."""


class _Parser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[_Block] = []
        self.title = ""
        self.footnotes = 0
        self._buffer: list[str] = []
        self._heading: tuple[int, bool] | None = None
        self._skip: list[str] = []  # tags whose content is left out, innermost last
        self._in_title = False
        self._boiler: list[str] = []  # the tag that opened pg-header / pg-footer

    def _flush(self) -> None:
        text = "".join(self._buffer)
        self._buffer = []
        lines = [" ".join(line.split()) for line in text.split("\n")]
        text = "\n".join(line for line in lines if line)
        if not text:
            return
        if self._heading is not None:
            level, title_page = self._heading
            self.blocks.append(_Block("h", text, level, title_page, bool(self._boiler)))
        else:
            self.blocks.append(_Block("p", text, boilerplate=bool(self._boiler)))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        cls, ident = values.get("class") or "", values.get("id") or ""
        if tag == "title":
            self._in_title = True
            return
        if self._skip:
            if tag == self._skip[0] and tag not in _VOID:
                self._skip.append(tag)  # the same tag nested inside the skipped one
            return
        if tag in _SKIP or _PAGE_CLASS.search(cls) or _NOTE_CLASS.search(cls):
            if _NOTE_CLASS.search(cls) and tag not in ("a", "span", "sup"):
                self.footnotes += 1
            if tag not in _VOID:
                self._skip.append(tag)
            return
        if ident in ("pg-header", "pg-footer") and tag not in _VOID:
            self._flush()
            self._boiler.append(tag)
            return
        if self._boiler and tag == self._boiler[0] and tag not in _VOID:
            self._boiler.append(tag)
        if tag in _HEADINGS:
            self._flush()
            self._heading = (_HEADINGS[tag], bool(_TITLE_CLASS.search(cls)))
        elif tag == "br":
            self._buffer.append("\n")
        elif tag in _BLOCK or tag == "hr":
            self._flush()

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
            return
        if self._skip:
            if tag == self._skip[-1]:
                self._skip.pop()
            return
        if self._boiler and tag == self._boiler[-1]:
            self._boiler.pop()
            if not self._boiler:
                self._flush()
            return
        if tag in _HEADINGS and self._heading is not None:
            self._flush()
            self._heading = None
        elif tag in _BLOCK:
            self._flush()

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        elif not self._skip:
            self._buffer.append(data)

    def close(self) -> None:
        super().close()
        self._flush()


def _chapter_level(blocks: list[_Block]) -> int | None:
    """The heading level that marks chapters: the one among h1–h3 used most often (twice or
    more; the higher level on a tie), Gutenberg's boilerplate and title pages not counted."""
    counts: dict[int, int] = {}
    for b in blocks:
        if b.kind == "h" and b.level <= 3 and not b.boilerplate and not b.title_page:
            counts[b.level] = counts.get(b.level, 0) + 1
    if not counts or max(counts.values()) < 2:
        return None
    return min(level for level, n in counts.items() if n == max(counts.values()))


def html_text(html: str) -> HtmlText:
    """The text of the HTML document ``html`` (see the module docstring)."""
    parser = _Parser()
    parser.feed(html)
    parser.close()
    level = _chapter_level(parser.blocks)
    paragraphs = []
    for b in parser.blocks:
        if b.kind == "h" and b.level == level and not b.boilerplate and not b.title_page:
            paragraphs.append("## " + " ".join(b.text.split()))  # CHAPTER I.<br>Loomings: one line
        else:
            paragraphs.append(b.text)
    return HtmlText("\n\n".join(paragraphs) + "\n", " ".join(parser.title.split()), parser.footnotes)


def looks_like_html(text: str) -> bool:
    """True when ``text`` opens as an HTML document (a ``.txt`` file holding HTML)."""
    head = text.lstrip("\ufeff \t\r\n")[:500].lower()
    return head.startswith(("<!doctype html", "<html", "<?xml")) and "<html" in text[:5000].lower()


__all__ = ["HTML_SUFFIXES", "HtmlText", "html_text", "looks_like_html"]
