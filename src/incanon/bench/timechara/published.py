"""The published TimeChara set: its four series and where each character time point falls.

Published rows name a character's time point in words: ``2nd-year / on Halloween`` or
``2nd-year`` (Harry Potter: a school year, and a day of it or the end of the year), ``1 / at
Bilbo Baggins's Farewell party`` or ``3`` (the other series: a book, and a named moment of it or
the end of the book). The positions of all 219 time points are data, in
``incanon/data/timechara/periods.json`` (its ``about`` field gives the source: the paper's
Appendix F and the authors' ``utils.py``). The Lord of the Rings is placed at its own depth,
volume-book-chapter (``1-2-10``); the other series at book-chapter (``2-8``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

from incanon.canon.position import Position
from incanon.errors import InputError

END_OF_BOOK = "at the end of the scene"
"""The day the published set names when a period has no named moment (the end of that book)."""


@dataclass(frozen=True)
class Series:
    """One published series."""

    slug: str
    title: str
    author: str
    books: dict[int, str]
    levels: tuple[str, ...]
    """What each number of a position means: ``("book", "chapter")`` or
    ``("volume", "book", "chapter")``."""
    pronouns: dict[str, str] = field(default_factory=dict)
    """Character → ``he`` / ``she`` (the published prompts use them)."""
    days: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Harry Potter: normalized day → position in each school year."""
    book_ends: dict[int, str] = field(default_factory=dict)
    moments: dict[str, dict[str, str]] = field(default_factory=dict)
    """Character → normalized named moment → position."""


@dataclass(frozen=True)
class Period:
    """A published ``character_period`` read: the book (school year), the day, the position."""

    series: Series
    character: str
    book: int
    year: str
    """The part before ``/`` as written (``2nd-year``, ``1``)."""
    day: str
    """The named moment, or ``at the end of the scene``."""
    position: Position
    written: str = ""
    """The period as the row writes it (the authors' names are made from its text)."""

    @property
    def is_end(self) -> bool:
        """True for a period without a named moment (the end of the book / school year)."""
        return self.day == END_OF_BOOK

    @property
    def book_title(self) -> str:
        """The title of the book the character stands in."""
        return self.series.books.get(self.book, f"book {self.book}")

    @property
    def pronoun(self) -> str:
        """``he`` or ``she`` (``they`` for a character the table does not know)."""
        return self.series.pronouns.get(self.character, "they")

    def moment(self) -> str:
        """The moment as the published prompts put it, e.g. ``on Halloween during his
        2nd-year in Harry Potter and the Chamber of Secrets``."""
        hp = self.series.slug == "harry_potter"
        if self.is_end:
            last = hp and self.book == max(self.series.books)
            return f"at the end of the scene in {self.book_title}" + ("" if not hp or last else f" as a {self.year} student")
        if hp:
            possessive = {"he": "his", "she": "her"}.get(self.pronoun, "their")
            return f"{self.day} during {possessive} {self.year} in {self.book_title}"
        return f"{self.day} in {self.book_title}"

    def judge_name(self) -> str:
        """How the authors' judges name the character (``day_character`` of evaluate.py:
        ``3rd-year Hermione Granger on Christmas``; a period without a day: ``... at the end of
        the scene in <book>``, and no school year for the bare ``7th-year``)."""
        day = self.written_day or f"at the end of the scene in {self.book_title}"
        if self.series.slug == "harry_potter" and self.written.strip() != "7th-year":
            return f"{self.year} {self.character} {day}"
        return f"{self.character} {day}"

    def feedback_name(self) -> str:
        """How the authors' self-refine names the character in its feedback prompt (the
        ``day_character`` their generation step makes: ``3rd-year Hermione Granger on Christmas
        in Harry Potter and the Prisoner of Azkaban``; no school year at the end of the last)."""
        named = f"{self.character} {self.written_day or END_OF_BOOK} in {self.book_title}"
        last = not self.written_day and self.book == max(self.series.books)
        if self.series.slug == "harry_potter" and not last:
            return f"{self.year} {named}"
        return named

    @property
    def written_day(self) -> str:
        """The day as the period writes it after ``/`` (empty when it names none)."""
        return self.written.partition("/")[2].strip()


def norm(text: str) -> str:
    """A key for named moments: lower case, letters and digits only."""
    return re.sub(r"[^a-z0-9]+", "", text.lower())


@lru_cache(maxsize=1)
def _data() -> dict:
    text = resources.files("incanon.data").joinpath("timechara/periods.json").read_text(encoding="utf-8")
    return json.loads(text)


@lru_cache(maxsize=1)
def _series() -> dict[str, Series]:
    data = _data()
    aliases = {norm(k): norm(v) for k, v in data.get("aliases", {}).items() if k != "why"}
    out: dict[str, Series] = {}
    for slug, s in data["series"].items():
        moments = {name: {norm(k): v for k, v in days.items()} for name, days in s.get("moments", {}).items()}
        for days in moments.values():
            for alias, target in aliases.items():
                if target in days and alias not in days:
                    days[alias] = days[target]
        out[slug] = Series(
            slug=slug, title=s["title"], author=s["author"], books={int(k): v for k, v in s["books"].items()},
            levels=tuple(s["levels"]), pronouns=dict(s.get("characters", {})),
            days={norm(k): tuple(v) for k, v in s.get("school_year_days", {}).items()},
            book_ends={int(k): v for k, v in s.get("book_ends", {}).items()}, moments=moments,
        )
    return out


SERIES: dict[str, Series] = _series()
"""Slug → series, for the four published series."""

_NUMBERS = re.compile(r"\d+")


def series_info(series: str) -> Series | None:
    """The published series ``series`` (slug or title, any case), or None."""
    key = norm(series)
    for slug, info in SERIES.items():
        if key in (norm(slug), norm(info.title)):
            return info
    return None


def read_period(series: str, character: str, period: str) -> Period:
    """Place a published time point; ``InputError`` says why one cannot be placed."""
    info = series_info(series)
    if info is None:
        raise InputError(f"{series!r} is not one of the published series ({', '.join(SERIES)})")
    head, _, tail = period.partition("/")
    if "/" in tail:
        raise InputError(f"time point {period!r} has more than one '/'")
    digits = _NUMBERS.findall(head)
    if not digits:
        raise InputError(f"time point {period!r} does not start with a book or school year")
    book = int(digits[0])
    if book not in info.books:
        raise InputError(f"{info.title} has no book {book} (time point {period!r})")
    day = tail.strip() or END_OF_BOOK
    if info.days:  # Harry Potter: the same days every school year
        per_year = info.days.get(norm(day))
        if per_year is None:
            raise InputError(f"{day!r} is not one of the Harry Potter days "
                             f"({', '.join(sorted(info.days))})")
        # No Halloween after the 4th year: the authors' code falls back to the start of the book.
        text = per_year[book - 1] if book <= len(per_year) else f"{book}-0"
        return Period(info, character, book, head.strip(), day, Position.parse(text), period)
    if not tail.strip():
        return Period(info, character, book, head.strip(), day, Position.parse(info.book_ends[book]), period)
    known = info.moments.get(character)
    if known is None:
        raise InputError(f"{character!r} is not a published character of {info.title} "
                         f"({', '.join(sorted(info.moments))})")
    found = known.get(norm(day))
    if found is None:
        raise InputError(f"{day!r} is not one of {character}'s time points in {info.title}")
    return Period(info, character, book, head.strip(), day, Position.parse(found), period)


def period_position(series: str, character: str, period: str) -> Position | None:
    """Where a published time point falls on its series' axis; None if it cannot be placed.
    (A plain ``b-c`` or ``b-c-s`` period of another work is read as that position.)"""
    try:
        return read_period(series, character, period).position
    except InputError:
        pass
    numbers = _NUMBERS.findall(period)
    if 2 <= len(numbers) <= 3 and re.search(r"\d+\s*-\s*\d+", period):
        return Position.parse("-".join(numbers))
    return None


def question_position(question_period: str, depth: int = 3) -> Position | None:
    """``Book1-chapter2`` / ``1-2`` / ``Volume1-Book2-chapter5`` → a position (its first
    ``depth`` numbers); None when there is none."""
    numbers = _NUMBERS.findall(question_period or "")
    return Position.parse("-".join(numbers[:depth])) if numbers else None


def levels_of(series: str) -> tuple[str, ...]:
    """The position levels of a published series (``("book", "chapter")`` for other works)."""
    info = series_info(series)
    return info.levels if info is not None else ("book", "chapter")


def authors_names(series: str, character: str, period: str) -> tuple[str, str] | None:
    """(judges' name, self-refine feedback's name) of a published time point, as the authors'
    code fills ``{agent_name}``; None when the period cannot be read."""
    try:
        read = read_period(series, character, period)
    except InputError:
        return None
    return read.judge_name(), read.feedback_name()


def time_label(series: str, period: str, position: Position | None, character: str = "") -> str:
    """How a role-play prompt names the moment (the published prompts' phrase when the period
    can be read, else the period as written)."""
    try:
        return read_period(series, character, period).moment()
    except InputError:
        return period
