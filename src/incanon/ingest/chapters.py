"""One chapter detector for every reader of books: headings found by regular expressions.

Used by ``canon build``, ``coser curate`` (its chunking) and ``timechara build --book`` (plain
text and Gutenberg books). Headings recognised (one line, optionally markdown ``#``-prefixed,
optionally bold):

* ``Chapter 12``, ``CHAPTER XII``, ``Chapter Twelve: The Fall``, ``Chap. 3``
* ``Part 2``, ``PART II``, ``Book One`` (a part: it does not count as a chapter)
* ``CHAPTER 1  The Period  It was...`` (a heading run into its first paragraph)
* plays: ``Act I`` / ``ACT ONE`` (a part), ``Scene 2`` (a chapter)
* a bare number or roman numeral: ``12``, ``12.``, ``XII``
* ``12. The Fall`` / ``XII. The Fall``
* ``Prologue``, ``Epilogue``, ``Interlude``, ``Afterword``
* titled: a markdown heading ``## The Fall``, or a short ALL-CAPS line between blank lines

Whitespace inside a heading may be any Unicode space (Project Gutenberg writes
``Chapter\xa01.``). Front and back matter (contents, notes, index...) is not a chapter, and once
back matter follows the story (``ENDNOTES`` after the last chapter), the headings after it (the
notes' ``Chapter 1`` ...) are not chapters either. A table of contents, the same heading lines
with (almost) nothing between them before the real ones, is dropped too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_NUMBER_WORDS = (
    "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|"
    "sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|first|second|third|fourth|fifth|"
    "sixth|seventh|eighth|ninth|tenth"
)
_NUM = rf"(?:\d{{1,4}}|[ivxlcdm]{{1,8}}|(?:{_NUMBER_WORDS})(?:[- ](?:{_NUMBER_WORDS}))?)"
# ``[^\S\n]``: any whitespace but a newline (spaces, tabs, ``\r``, and Unicode spaces such as the
# non-breaking space Project Gutenberg puts in ``Chapter\xa01.``).
_PREFIX = r"^[^\S\n]*(?:#{1,6}[^\S\n]*)?(?:\*\*|__)?[^\S\n]*"
_SUFFIX = r"(?:[^\S\n]*[:.\-–—][^\S\n]*(?P<title>[^\n]{0,100}?))?[^\S\n]*(?:\*\*|__)?[^\S\n]*#*[^\S\n]*$"

_MATTER = (r"(?:table[^\S\n]+of[^\S\n]+)?contents|end[^\S\n]*notes|notes|index|glossary|bibliography|"
           r"acknowledge?ments?|about[^\S\n]+the[^\S\n]+author|copyright|appendix")

CHAPTER_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    # Front and back matter: not a chapter; after the story, back matter ends the chapters.
    ("matter", re.compile(_PREFIX + rf"(?P<title>{_MATTER})[^\S\n]*(?:\*\*|__)?[^\S\n]*#*[^\S\n]*$", re.I | re.M)),
    ("chapter", re.compile(_PREFIX + rf"(?:chapter|chap\.?|ch\.)[^\S\n]+(?P<num>{_NUM})\b" + _SUFFIX, re.I | re.M)),
    # A heading run into its chapter's first paragraph on one line ("CHAPTER 1  The Period  It was ...").
    ("chapter", re.compile(rf"^[^\S\n]*CHAPTER[^\S\n]+(?P<num>{_NUM})(?=[^\S\n]{{2,}}\S)", re.I | re.M)),
    ("part", re.compile(_PREFIX + rf"(?:part|book|volume|vol\.|act)[^\S\n]+(?:the[^\S\n]+)?(?P<num>{_NUM})\b" + _SUFFIX,
                        re.I | re.M)),
    # Plays: a scene is the chapter, an act the part.
    ("chapter", re.compile(_PREFIX + rf"scene[^\S\n]+(?P<num>{_NUM})\b" + _SUFFIX, re.I | re.M)),
    ("chapter", re.compile(_PREFIX + r"(?P<num>\d{1,3}|[IVXLCDM]{1,7})\.?" + r"[^\S\n]*(?:\*\*|__)?[^\S\n]*$", re.M)),
    ("chapter", re.compile(_PREFIX + r"(?P<num>\d{1,3}|[IVXLCDM]{1,7})[.:][^\S\n]+(?P<title>[A-Z][^\n]{0,80})$", re.M)),
    ("chapter", re.compile(_PREFIX + r"(?P<title>prologue|epilogue|interlude|afterword|foreword)\b[^\n]{0,80}$", re.I | re.M)),
    ("chapter", re.compile(r"^[^\S\n]*#{2,6}[^\S\n]+(?P<title>[^\n#]{1,100}?)[^\S\n]*#*[^\S\n]*$", re.M)),
    # Last resort for titled chapters: a short ALL-CAPS line between blank lines (ignored when the
    # book has numbered headings, where such lines are title pages and cast lists).
    ("titled", re.compile(r"(?:(?<=\n\n)|\A)(?P<title>[A-Z][A-Z0-9 ,'’\-:;!?]{2,60})[^\S\n]*(?=\n\n)")),
)
"""(kind, pattern) pairs; the first pattern matching a line decides its kind."""


@dataclass(frozen=True)
class Heading:
    """A chapter or part heading found in the text."""

    start: int
    """Character offset of the heading line."""
    line: str
    kind: str
    """``chapter`` or ``part``."""
    number: int
    """Chapter ordinal in the book (1-based; parts take the number of the next chapter)."""


def find_headings(text: str) -> list[Heading]:
    """Every heading line, in order, numbered by chapter."""
    found: dict[int, tuple[str, str]] = {}
    for kind, pattern in CHAPTER_PATTERNS:
        for m in pattern.finditer(text):
            line_start = text.rfind("\n", 0, m.start() + 1) + 1
            line = text[line_start : text.find("\n", line_start) if "\n" in text[line_start:] else len(text)]
            if line_start not in found and line.strip():
                found[line_start] = (kind, line.strip())
    numbered = sum(1 for kind, _ in found.values() if kind == "chapter")
    found = {k: (("chapter", line) if kind == "titled" else (kind, line)) for k, (kind, line) in found.items()
             if kind != "titled" or numbered < 3}
    starts = sorted(found)
    kept: list[int] = []
    seen_chapter = False
    for i, start in enumerate(starts):
        kind, line = found[start]
        if kind == "matter":
            if seen_chapter and not _is_contents(line):
                break  # back matter after the story: the rest is notes, index...
            continue
        if kind == "chapter" and _listed_again(starts, i, found, text):
            continue  # a table-of-contents entry
        seen_chapter = seen_chapter or kind == "chapter"
        kept.append(start)
    headings: list[Heading] = []
    number = 0
    for start in kept:
        kind, line = found[start]
        if kind == "chapter":
            number += 1
        headings.append(Heading(start, line, kind, max(number, 1) if kind == "chapter" else number + 1))
    return headings


def _is_contents(line: str) -> bool:
    return "content" in line.lower()


def _norm(line: str) -> str:
    return " ".join(re.sub(r"[#*_]", " ", line).lower().split())


def _listed_again(starts: list[int], i: int, found: dict[int, tuple[str, str]], text: str) -> bool:
    """A chapter heading followed by (almost) nothing before the next heading, whose line
    appears again later: a table-of-contents entry."""
    start = starts[i]
    end = starts[i + 1] if i + 1 < len(starts) else len(text)
    if len(text[start:end].split()) - len(found[start][1].split()) > 3:
        return False
    line = _norm(found[start][1])
    return any(_norm(found[later][1]) == line for later in starts[i + 1:])


def chapter_at(headings: list[Heading], offset: int) -> Heading | None:
    """The last chapter heading at or before ``offset``."""
    current = None
    for h in headings:
        if h.start > offset:
            break
        if h.kind == "chapter":
            current = h
    return current


@dataclass(frozen=True)
class TextChapter:
    """A chapter cut out of running text, numbered within its book (part or volume)."""

    book: int
    number: int
    title: str
    text: str
    line: int
    """1-based line of the heading in the text it was cut from (1 for a text without headings)."""
    heading: str = ""


_TITLE_LINE = re.compile(r"^[^\S\n]*([^\n]{1,80}?)[^\S\n]*$")


def _title_after(text: str, end: int) -> tuple[str, int]:
    """A chapter title on the line after a bare heading (`` I.`` then `` Introduction``): short,
    no sentence end, followed by a blank line. Returns (title, offset after it) or ("", end)."""
    rest = text[end:]
    stripped = rest.lstrip("\n")
    lead = len(rest) - len(stripped)
    line = stripped.split("\n", 1)[0]
    m = _TITLE_LINE.match(line)
    follows = stripped[len(line):len(line) + 2]
    if (not m or lead > 2 or len(m.group(1).split()) > 10 or m.group(1).rstrip().endswith((".", ",", ";", "”", '"'))
            or not follows.startswith("\n\n") and follows):
        return "", end
    return m.group(1).strip(), end + lead + len(line)


def split_chapters(text: str, *, min_opening_words: int = 300) -> list[TextChapter]:
    """The chapters of ``text`` by :func:`find_headings`; parts (``Part II``, ``Book Two``)
    number the books. Text before the first heading is front matter (a title page, a contents
    list) unless it holds at least ``min_opening_words`` words, when it is an opening chapter.
    A text without headings is one chapter."""
    headings = find_headings(text)
    if not headings:
        return [TextChapter(1, 1, "", text.strip(), 1)] if text.strip() else []
    chapters: list[TextChapter] = []
    # A part heading opens a new book only once a chapter follows it and the current book has
    # chapters: the parts of a contents list (nothing between them) open nothing.
    book, number, part_pending = 1, 0, False
    opening = text[:headings[0].start]
    if len(opening.split()) >= min_opening_words:
        chapters.append(TextChapter(1, 1, "", opening.strip(), 1))
        number = 1
    for i, h in enumerate(headings):
        end = headings[i + 1].start if i + 1 < len(headings) else len(text)
        line_end = text.find("\n", h.start)
        line_end = end if line_end < 0 or line_end > end else line_end
        if h.kind == "part":
            part_pending = True
            continue
        title_match = next((m for _, p in CHAPTER_PATTERNS for m in [p.match(h.line)] if m), None)
        title = ((title_match.groupdict().get("title") or "") if title_match else "").strip(" *_#")
        body_start = line_end
        if not title:
            title, body_start = _title_after(text, line_end)
        body = text[body_start:end].strip()
        if not body:
            continue
        if part_pending and number > 0:
            book, number = book + 1, 0
        part_pending = False
        number += 1
        chapters.append(TextChapter(book, number, title or h.line.strip(" *_#"), body, text.count("\n", 0, h.start) + 1,
                                    h.line))
    return chapters
