"""Story time: a totally ordered axis of positions in a work.

A work uses one of two axes:

* ``chapter``: ``book-chapter[-scene]`` such as ``2-5`` or ``2-5-3``. A position that leaves out
  a part means *the end of* that unit: ``2-5`` sorts after every scene of chapter 5 of book 2, and
  ``2`` after every chapter of book 2. So a character "at 2-5" knows everything that happens in
  chapter 5, and an event "in 2-5" is known to a character at 2-5 (TimeChara's convention:
  only a strictly later question period is *future*).
* ``date``: ISO calendar dates ``YYYY-MM-DD`` (DialSim's dated sessions).

Every position has an integer ``key`` with the same order; the canon store indexes that integer,
so "is X at or before P?" is one indexed comparison in SQL.
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass
from enum import StrEnum

from incanon.errors import InputError
from incanon.printable import quoted


class Axis(StrEnum):
    """The kind of story-time axis a work uses."""

    CHAPTER = "chapter"
    DATE = "date"


_END = (1 << 20) - 1  # "the end of" a unit left unspecified
_MAX_BOOK = (1 << 11) - 1
_CHAPTER_RE = re.compile(r"^\s*(\d+)(?:\s*-\s*(\d+))?(?:\s*-\s*(\d+))?\s*$")
_DATE_RE = re.compile(r"^\s*(\d{4})-(\d{2})-(\d{2})\s*$")
#: Longest text read as a position: ``2047-1048574-1048574`` with room for spaces. Longer text
#: is refused before ``int()`` sees it (past 4,300 digits Python refuses the conversion, and a
#: message must not quote a megabyte back).
MAX_POSITION_CHARS = 64


class PositionTooLong(InputError):
    """A position text too long to be one: refused as such, never looked up as a label."""


@dataclass(frozen=True, slots=True)
class Position:
    """One point on a work's story-time axis. Compare positions of the same axis with < <= etc."""

    axis: Axis
    book: int | None = None
    chapter: int | None = None
    scene: int | None = None
    date: _dt.date | None = None

    @classmethod
    def parse(cls, text: str | "Position") -> "Position":
        """Parse ``"2-5"``, ``"2-5-3"``, ``"2"`` or ``"2024-03-07"``.

        Raises ``InputError`` naming the text and the expected forms.
        """
        if isinstance(text, Position):
            return text
        raw = str(text)
        if len(raw) > MAX_POSITION_CHARS:
            raise PositionTooLong(f"story position {quoted(raw, 24)} is too long: a position has at most "
                                  f"{MAX_POSITION_CHARS} characters, like '2-5-3' or '2024-03-07'")
        m = _DATE_RE.match(raw)
        if m:
            try:
                return cls(Axis.DATE, date=_dt.date(int(m[1]), int(m[2]), int(m[3])))
            except ValueError as exc:
                raise InputError(f"invalid date {quoted(raw)}: {exc}") from None
        m = _CHAPTER_RE.match(raw)
        if not m:
            raise InputError(
                f"invalid story position {quoted(raw)}: expected book-chapter[-scene] "
                "like '2-5' or '2-5-3', or a date like '2024-03-07'"
            )
        book, chapter, scene = (int(g) if g is not None else None for g in m.groups())
        pos = cls(Axis.CHAPTER, book=book, chapter=chapter, scene=scene)
        pos._check_range(raw)
        return pos

    @classmethod
    def chapter_pos(cls, book: int, chapter: int | None = None, scene: int | None = None) -> "Position":
        """Build a chapter-axis position from numbers."""
        pos = cls(Axis.CHAPTER, book=book, chapter=chapter, scene=scene)
        pos._check_range(str(pos))
        return pos

    @classmethod
    def from_date(cls, value: _dt.date | str) -> "Position":
        """Build a date-axis position."""
        if isinstance(value, str):
            return cls.parse(value)
        return cls(Axis.DATE, date=value)

    @classmethod
    def from_key(cls, axis: Axis | str, key: int) -> "Position":
        """Invert ``key`` (as read back from the store)."""
        axis = Axis(axis)
        if axis is Axis.DATE:
            return cls(Axis.DATE, date=_dt.date.fromordinal(key))
        book, chapter, scene = key >> 40, (key >> 20) & _END, key & _END
        return cls(
            Axis.CHAPTER,
            book=book,
            chapter=None if chapter == _END else chapter,
            scene=None if scene == _END else scene,
        )

    def _check_range(self, raw: str) -> None:
        raw = quoted(raw)
        if self.book is None or not 0 <= self.book <= _MAX_BOOK:
            raise InputError(f"story position {raw}: book must be 0..{_MAX_BOOK}")
        for part in (self.chapter, self.scene):
            if part is not None and not 0 <= part < _END:
                raise InputError(f"story position {raw}: chapter and scene must be 0..{_END - 1}")
        if self.chapter is None and self.scene is not None:
            raise InputError(f"story position {raw}: a scene needs a chapter")

    @property
    def key(self) -> int:
        """The integer sort key stored and indexed in the canon store."""
        if self.axis is Axis.DATE:
            assert self.date is not None
            return self.date.toordinal()
        chapter = _END if self.chapter is None else self.chapter
        scene = _END if self.scene is None else self.scene
        return (int(self.book or 0) << 40) | (chapter << 20) | scene

    def _same_axis(self, other: object) -> "Position":
        if not isinstance(other, Position):
            return NotImplemented  # type: ignore[return-value]
        if other.axis is not self.axis:
            raise TypeError(f"cannot compare a {self.axis} position with a {other.axis} position")
        return other

    def __lt__(self, other: "Position") -> bool:
        return self.key < self._same_axis(other).key

    def __le__(self, other: "Position") -> bool:
        return self.key <= self._same_axis(other).key

    def __gt__(self, other: "Position") -> bool:
        return self.key > self._same_axis(other).key

    def __ge__(self, other: "Position") -> bool:
        return self.key >= self._same_axis(other).key

    def __str__(self) -> str:
        if self.axis is Axis.DATE:
            assert self.date is not None
            return self.date.isoformat()
        parts = [self.book, self.chapter, self.scene]
        return "-".join(str(p) for p in parts if p is not None)

    def __repr__(self) -> str:
        return f"Position({str(self)!r})"


#: The highest book number a position can hold: the end of the story sorts after every book.
_LAST_BOOK = (1 << 11) - 1


def end_of_story(axis: Axis) -> Position:
    """A position at or after everything on ``axis``: the omniscient reader stands there."""
    if axis is Axis.DATE:
        return Position.from_date(_dt.date.max)
    return Position.chapter_pos(_LAST_BOOK)
