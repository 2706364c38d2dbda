"""Static chunking: chapter boundaries by regular expressions, then merge small and split large.

Headings recognised (one line, optionally markdown ``#``-prefixed, optionally bold):

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

Adjacent sections are merged until a chunk reaches half the budget; a chunk over the budget is
split at paragraph (then sentence, then word) boundaries. Tokens are counted by
``incanon.tokens.count_tokens`` (the embedded GGUF's vocabulary, or the documented estimate), as
every context budget of incanon is.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from incanon.tokens import count_tokens

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


@dataclass
class Chunk:
    """A piece of the book sent to extraction in one call."""

    index: int
    start: int
    end: int
    text: str
    chapters: list[Heading] = field(default_factory=list)
    """Chapter headings inside this chunk."""

    @property
    def tokens(self) -> int:
        return count_tokens(self.text)


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


_BOUNDARIES = (r"\n[ \t]*\n", r"(?<=[.!?…])[\"”’')\]]*\s+", r"\s+")


def _split_large(text: str, start: int, max_tokens: int, level: int = 0) -> list[tuple[int, int]]:
    """Cut ``text`` (at ``start`` in the book) into spans of at most ``max_tokens``: greedy at
    paragraph breaks, a paragraph that is too long at sentence ends, then at spaces."""
    if count_tokens(text) <= max_tokens:
        return [(start, start + len(text))]
    if level >= len(_BOUNDARIES):
        width = max(1, len(text) * max_tokens // max(1, count_tokens(text)))
        return [(start + i, start + min(len(text), i + width)) for i in range(0, len(text), width)]
    cuts = [m.end() for m in re.finditer(_BOUNDARIES[level], text)]
    pieces = [(a, b) for a, b in zip([0, *cuts], [*cuts, len(text)]) if b > a]
    spans: list[tuple[int, int]] = []
    begin = end = 0
    for a, b in pieces:
        if count_tokens(text[begin:b]) <= max_tokens:
            end = b
            continue
        if end > begin:
            spans.append((start + begin, start + end))
        if count_tokens(text[a:b]) > max_tokens:
            spans.extend(_split_large(text[a:b], start + a, max_tokens, level + 1))
            begin = end = b
        else:
            begin, end = a, b
    if end > begin:
        spans.append((start + begin, start + end))
    return spans


def chunk_text(text: str, max_tokens: int = 8192, min_tokens: int | None = None) -> list[Chunk]:
    """Chunks of at most ``max_tokens``, cut at headings where possible.

    Sections are merged until a chunk holds ``min_tokens`` (default: half of ``max_tokens``).
    """
    if max_tokens < 16:
        raise ValueError("max_tokens must be at least 16")
    low = max_tokens // 2 if min_tokens is None else min_tokens
    headings = find_headings(text)
    bounds = sorted({0, *(h.start for h in headings), len(text)})
    sections = [(a, b) for a, b in zip(bounds, bounds[1:]) if text[a:b].strip()]
    spans: list[tuple[int, int]] = []
    pending: int | None = None  # start of merged small sections not yet emitted
    for a, b in sections:
        begin = a if pending is None else pending
        tokens = count_tokens(text[begin:b])
        if tokens < low:
            pending = begin
            continue
        # Balanced pieces: a 1.1-budget chapter gives two halves, not a chunk and a sliver.
        limit = min(max_tokens, math.ceil(tokens / math.ceil(tokens / max_tokens) * 1.15))
        spans.extend(_split_large(text[begin:b], begin, limit))
        pending = None
    if pending is not None:
        # A small tail joins the previous chunk when the two still fit.
        if spans and count_tokens(text[spans[-1][0] :]) <= max_tokens:
            spans[-1] = (spans[-1][0], len(text))
        else:
            spans.extend(_split_large(text[pending:], pending, max_tokens))
    chunks = []
    for i, (a, b) in enumerate(spans):
        inside = [h for h in headings if a <= h.start < b and h.kind == "chapter"]
        chunks.append(Chunk(index=i, start=a, end=b, text=text[a:b], chapters=inside))
    return chunks
