"""Event time of graph facts: the time expression an extraction gives ("1822-1824", "at age 21",
"later") resolved to a story position on the work's axis, as a temporal knowledge graph keeps
valid-from / valid-to.

Rules (``resolve``), in order:

* empty → no time of its own: the chunk's position applies (the fallback);
* a future marker ("later", "years later", "would", "one day", "eventually") with no date →
  an unknown time after the passage: the **end of the story** (only a reader at the end sees it;
  a foreshadowing sentence in chapter 1 is not known in chapter 2);
* on a **date** axis: an ISO date, "17 December 1770", "December 1770", a year ("1795", "c. 1800",
  "the 1790s"), a range ("1822-24", "between 1802 and 1812": its start for valid-from, its end
  for valid-to), "after 1810", and an age ("at age 21", "aged 21") counted from ``born``;
* on a **chapter** axis: a position written as one ("2-5", "2-5-3"); calendar years mean
  nothing there and fall back to the chunk's position;
* anything else (``"after the war"``, ``"as a child"``) → the chunk's position, with a note.

Valid-to is exclusive, like the canon's: "until 1812" ends at 1813-01-01.
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass

from incanon.canon.position import Axis, Position
from incanon.errors import InputError

_MONTHS = {m: i for i, m in enumerate(
    "january february march april may june july august september october november december".split(), 1)}
_MONTHS.update({m[:3]: i for m, i in list(_MONTHS.items())})
_FUTURE = re.compile(r"\b(later|afterwards?|eventually|one day|some ?day|would|will|was to|were to|"
                     r"in (?:the )?future|years? after|in time)\b", re.I)
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_DMY = re.compile(r"\b(\d{1,2})\s+([A-Za-z]{3,9})\.?,?\s+(\d{3,4})\b")
_MDY = re.compile(r"\b([A-Za-z]{3,9})\.?\s+(\d{1,2}),?\s+(\d{3,4})\b")
_MY = re.compile(r"\b([A-Za-z]{3,9})\.?\s+(\d{3,4})\b")
_RANGE = re.compile(r"\b(\d{3,4})\s*(?:[-–—]|to|and|until|till)\s*(\d{2,4})\b")
_DECADE = re.compile(r"\b(\d{3})0s\b")
_YEAR = re.compile(r"(?<![\d-])(\d{3,4})(?![\d-])")
_AGE = re.compile(r"\b(?:age(?:d)?|at)\s+(\d{1,3})\b", re.I)
_CHAPTER = re.compile(r"^\s*\d+\s*-\s*\d+(?:\s*-\s*\d+)?\s*$")


@dataclass(frozen=True)
class Resolved:
    """A time expression on the work's axis."""

    key: int | None
    """Position key; None: the text gives no usable time (the chunk's position applies)."""
    note: str = ""
    """How it was read ("1822-01-01", "later: end of story", "age 21 from 1770-12-16") or why
    it fell back."""


def _date(year: int, month: int = 1, day: int = 1) -> _dt.date | None:
    try:
        return _dt.date(year, month, day)
    except ValueError:
        return None


def _month(word: str) -> int | None:
    return _MONTHS.get(word.casefold().rstrip("."))


def _span(text: str) -> tuple[_dt.date, _dt.date] | None:
    """(first day, day after the last) of the period ``text`` names, on the calendar."""
    if m := _ISO.search(text):
        d = _date(int(m[1]), int(m[2]), int(m[3]))
        if d:
            return d, d + _dt.timedelta(days=1)
    for pattern, order in ((_DMY, "dmy"), (_MDY, "mdy")):
        for m in pattern.finditer(text):
            day, month, year = (m[1], m[2], m[3]) if order == "dmy" else (m[2], m[1], m[3])
            mo = _month(month)
            d = _date(int(year), mo, int(day)) if mo else None
            if d:
                return d, d + _dt.timedelta(days=1)
    if m := _RANGE.search(text):
        start, end = m[1], m[2]
        end = start[: len(start) - len(end)] + end  # "1822-24" -> 1824
        a, b = _date(int(start)), _date(int(end) + 1)
        if a and b and b > a:
            return a, b
    for m in _MY.finditer(text):
        mo = _month(m[1])
        if mo:
            a = _date(int(m[2]), mo)
            b = _date(int(m[2]) + (mo == 12), mo % 12 + 1)
            if a and b:
                return a, b
    if m := _DECADE.search(text):
        a, b = _date(int(m[1]) * 10), _date(int(m[1]) * 10 + 10)
        if a and b:
            return a, b
    if m := _YEAR.search(text):
        a, b = _date(int(m[1])), _date(int(m[1]) + 1)
        if a and b:
            return a, b
    return None


def _age(text: str, born: _dt.date | None) -> tuple[_dt.date, _dt.date] | None:
    m = _AGE.search(text)
    if m is None or born is None:
        return None
    years = int(m[1])
    start = _date(born.year + years, born.month, min(born.day, 28))
    end = _date(born.year + years + 1, born.month, min(born.day, 28))
    return (start, end) if start and end else None


def resolve(text: str, axis: Axis, *, end: bool = False, born: _dt.date | None = None) -> Resolved:
    """``text`` as a position key on ``axis``: the start of the period it names (``end=True``:
    the exclusive end, for valid-to); see the module rules."""
    raw = " ".join((text or "").split())
    if not raw:
        return Resolved(None)
    if axis is Axis.CHAPTER:
        if _CHAPTER.match(raw):
            try:
                return Resolved(Position.parse(raw).key, raw)
            except InputError:
                pass
        if _FUTURE.search(raw) and not end:
            return Resolved(_end_of_story(axis), "later: end of story")
        return Resolved(None, f"{raw!r}: no chapter position, the chunk's applies")
    age = _age(raw, born)
    period = age or _span(raw)
    if period is not None:
        day = period[1] if end else period[0]
        how = f"age from {born.isoformat()}" if age and born else "date"
        return Resolved(Position.from_date(day).key, f"{raw!r} read as {day.isoformat()} ({how})")
    if _AGE.search(raw):
        return Resolved(None, f"{raw!r}: an age, but no birth date (--born) to count from; the chunk's position applies")
    if _FUTURE.search(raw) and not end:
        return Resolved(_end_of_story(axis), "later: end of story")
    return Resolved(None, f"{raw!r}: no date, the chunk's position applies")


def _end_of_story(axis: Axis) -> int:
    from incanon.canon.position import end_of_story

    return end_of_story(axis).key
