"""Project Gutenberg e-texts: the story without the header and licence, and the book's metadata.

A Gutenberg plain-text file wraps the book in a header (``The Project Gutenberg eBook of ...``,
``Title:``, ``Author:``, ``Release date:`` ...) ending at a ``*** START OF THE PROJECT GUTENBERG
EBOOK ... ***`` line, and a footer from ``*** END OF THE PROJECT GUTENBERG EBOOK ... ***`` to the
end (the licence, several thousand words that say "Gutenberg" dozens of times). Older releases
write ``*** START OF THIS PROJECT GUTENBERG EBOOK``, ``***START OF THE PROJECT GUTENBERG``, and
end with ``End of the Project Gutenberg EBook of ...`` or ``*END*THE SMALL PRINT!`` before the
text. All of these are recognised; a text without the start marker is not a Gutenberg e-text
and comes back unchanged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_START = re.compile(r"^[^\S\n]*\*{3}[^\S\n]*START OF (?:THE|THIS) PROJECT GUTENBERG E-?BOOK\b[^\n]*$", re.I | re.M)
_SMALL_PRINT_END = re.compile(r"^[^\n]*\*END\*[^\S\n]*THE SMALL PRINT[^\n]*$", re.I | re.M)
_END = re.compile(
    r"^[^\S\n]*(?:\*{3}[^\S\n]*END OF (?:THE|THIS) PROJECT GUTENBERG E-?BOOK\b[^\n]*"
    r"|End of (?:the |this )?Project Gutenberg(?:(?:['’]s)?\s+(?:E-?Book|E-?text|Etext)\b|['’]s\s)[^\n]*)$",
    re.I | re.M,
)
_FIELD = re.compile(r"^(Title|Author|Language|Release [Dd]ate|Translator|Editor)[^\S\n]*:[^\S\n]*(.*)$", re.M)
_HEADER_TITLE = re.compile(
    r"(?:The Project Gutenberg E-?Book of|Project Gutenberg[’']s(?: E-?Book of)?) (.+?)(?:, by (.+?))?[^\S\n]*$",
    re.I | re.M)
# A start marker wrapped onto a second line ("*** START OF THIS PROJECT GUTENBERG EBOOK" /
# "THE STRANGE CASE OF DR. JEKYLL AND MR. HYDE ***"): the second line is the marker's too.
_MARKER_TAIL = re.compile(r"\A\n[^\S\n]*[^\n*]{1,120}\*{3}[^\S\n]*(?=\n|\Z)")
# Production notes that sit just inside the start marker ("Produced by ...", "[Illustration]").
_PRODUCED = re.compile(r"\A(?:\s*(?:Produced by|E-?text prepared by|Transcribed from)[^\n]*(?:\n[^\n]+)*\n)+", re.I)


@dataclass(frozen=True)
class GutenbergText:
    """The body of an e-text and what its header says about it."""

    body: str
    """The text between the start and end markers."""
    title: str = ""
    author: str = ""
    language: str = ""
    ebook: str = ""
    """The e-book number (``35`` for ``[eBook #35]``), when the header gives it."""
    removed_words: int = 0
    """Words of header and licence left out."""
    metadata: dict[str, str] = field(default_factory=dict)


def is_gutenberg(text: str) -> bool:
    """True when ``text`` has a Project Gutenberg start marker."""
    return _START.search(text) is not None


def _continued(header: str, match: re.Match[str]) -> str:
    # A long title goes on over indented lines until a blank line.
    value = match.group(2).strip()
    for line in header[match.end():].split("\n")[1:]:
        if not line.strip() or not line[:1].isspace():
            break
        value += " " + line.strip()
    return value


def header_title(text: str) -> tuple[str, str]:
    """(title, author) from a "The Project Gutenberg EBook of TITLE, by AUTHOR" line (or
    "Project Gutenberg's TITLE, by AUTHOR") in the first lines of ``text``, wrapped or not; a copy
    of an e-text whose start marker was cut away still names its book there."""
    head = text.replace("\r\n", "\n")[:3000]
    for paragraph in re.split(r"\n[^\S\n]*\n", head.lstrip("\ufeff")):
        lines = paragraph.strip().split("\n")
        # The line wraps onto a second one at most; a longer paragraph is the licence's text.
        named = _HEADER_TITLE.search(" ".join(" ".join(lines if len(lines) <= 2 else lines[:1]).split()))
        if named:
            return named.group(1).strip(), (named.group(2) or "").strip().rstrip(".")
    return "", ""


def cut_licence(text: str) -> tuple[str, int]:
    """``text`` up to a Project Gutenberg end marker (an EPUB's last document carries the licence),
    and the words cut; unchanged, 0 without a marker."""
    end = _END.search(text)
    if end is None:
        return text, 0
    return text[:end.start()].rstrip(), len(text[end.start():].split())


def strip_gutenberg(text: str) -> GutenbergText:
    """The story of a Gutenberg e-text and its metadata; any other text unchanged."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    start = _START.search(text)
    if start is None:
        return GutenbergText(body=text)
    header, rest = text[: start.start()], text[start.end():]
    if not start.group().rstrip().endswith("***"):
        tail = _MARKER_TAIL.match(rest)
        rest = rest[tail.end():] if tail else rest
    small_print = _SMALL_PRINT_END.search(rest)
    if small_print is not None:  # old releases put the licence before the text
        rest = rest[small_print.end():]
    end = _END.search(rest)
    body = rest[: end.start()] if end else rest
    body = _PRODUCED.sub("", body.lstrip("\n"))
    meta: dict[str, str] = {}
    for m in _FIELD.finditer(header):
        meta.setdefault(m.group(1).lower(), _continued(header, m))
    title, author = meta.get("title", ""), meta.get("author", "")
    if not title:
        title, named_author = header_title(header)
        author = author or named_author
    number = re.search(r"\[E-?(?:Book|text) #(\d+)\]", header, re.I)
    removed = len(text.split()) - len(body.split())
    return GutenbergText(body=body.strip("\n") + "\n", title=title, author=author, language=meta.get("language", ""),
                         ebook=number.group(1) if number else "", removed_words=removed, metadata=meta)


__all__ = ["GutenbergText", "cut_licence", "header_title", "is_gutenberg", "strip_gutenberg"]
