"""References to parts of a book in prose: "in book three", "Chapter 12", "Act IV", "the second
volume". A sentence that points to a part after the reader's or character's position tells of
what comes later even when it shares no word with it ("Her teacher Ottilie dies in book three.").
"""

from __future__ import annotations

import re

from incanon.canon.position import Axis, Position

_NUMBERS = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
            "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"]
_ORDINALS = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
             "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth",
             "eighteenth", "nineteenth", "twentieth"]
_WORDS = {w: i + 1 for i, w in enumerate(_NUMBERS)} | {w: i + 1 for i, w in enumerate(_ORDINALS)}
_ROMAN = re.compile(r"^[IVXLC]+$")
_BOOK = "book|volume|part"
_CHAPTER = "chapter|act"
_NUMBER = rf"\d{{1,4}}|[IVXLC]{{1,7}}|{'|'.join(_NUMBERS + _ORDINALS)}"
_AFTER = re.compile(rf"\b(?P<level>{_BOOK}|{_CHAPTER})\s+(?P<n>{_NUMBER})\b", re.IGNORECASE)
_BEFORE = re.compile(rf"\b(?P<n>{'|'.join(_ORDINALS)})\s+(?P<level>{_BOOK}|{_CHAPTER})\b", re.IGNORECASE)


def _value(raw: str) -> int | None:
    if raw.isdigit():
        return int(raw)
    if raw.casefold() in _WORDS:
        return _WORDS[raw.casefold()]
    if _ROMAN.match(raw):  # upper case only: "act i" is not read as a numeral
        values = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100}
        total = 0
        for a, b in zip(raw, raw[1:] + " "):
            v = values[a]
            total += -v if b != " " and values.get(b, 0) > v else v
        return total
    return None


def later_parts(text: str, at: Position, *, books: int) -> list[str]:
    """The references in ``text`` to a part after ``at``: books (or volumes, parts) after its
    book; chapters (or acts) after its chapter when the work has a single book. ``books``: how
    many books the work has (0 when it does not say)."""
    if at.axis is not Axis.CHAPTER or at.book is None:
        return []
    found: list[str] = []
    for pattern in (_AFTER, _BEFORE):
        for m in pattern.finditer(text):
            n = _value(m.group("n"))
            if n is None:
                continue
            level = m.group("level").casefold()
            if level in ("book", "volume", "part"):
                later = n > at.book
            else:
                later = books <= 1 and at.chapter is not None and n > at.chapter
            if later:
                found.append(m.group(0))
    return found


__all__ = ["later_parts"]
