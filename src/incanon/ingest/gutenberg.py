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
    r"|End of (?:the |this )?Project Gutenberg(?:'s)? (?:E-?Book|E-?text|Etext)\b[^\n]*)$",
    re.I | re.M,
)
_FIELD = re.compile(r"^(Title|Author|Language|Release [Dd]ate|Translator|Editor)[^\S\n]*:[^\S\n]*(.*)$", re.M)
_HEADER_TITLE = re.compile(r"The Project Gutenberg E-?Book of (.+?)(?:, by (.+?))?[^\S\n]*$", re.I | re.M)
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


def strip_gutenberg(text: str) -> GutenbergText:
    """The story of a Gutenberg e-text and its metadata; any other text unchanged."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    start = _START.search(text)
    if start is None:
        return GutenbergText(body=text)
    header, rest = text[: start.start()], text[start.end():]
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
        named = _HEADER_TITLE.search(header)
        if named:
            title, author = named.group(1).strip(), author or (named.group(2) or "").strip()
    number = re.search(r"\[E-?(?:Book|text) #(\d+)\]", header, re.I)
    removed = len(text.split()) - len(body.split())
    return GutenbergText(body=body.strip("\n") + "\n", title=title, author=author, language=meta.get("language", ""),
                         ebook=number.group(1) if number else "", removed_words=removed, metadata=meta)


__all__ = ["GutenbergText", "is_gutenberg", "strip_gutenberg"]
