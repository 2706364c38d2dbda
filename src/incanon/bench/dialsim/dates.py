"""Dates as DialSim's questions and prompts speak them: "March 22, 1187", "in March 1187"."""

from __future__ import annotations

import datetime as _dt
import re
from typing import Literal

from incanon.errors import InputError

Granularity = Literal["day", "month", "year"]

_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
           "October", "November", "December")
_LONG = re.compile(r"^\s*([A-Za-z]+)\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{3,4})\s*$")
_ISO = re.compile(r"^\s*(\d{4})-(\d{2})-(\d{2})\s*$")


def to_date(value: str | _dt.date) -> _dt.date:
    """An ISO date (``1187-03-22``) or a long one (``March 22, 1187``) as a ``date``."""
    if isinstance(value, _dt.date):
        return value
    m = _ISO.match(value)
    if m:
        return _dt.date(int(m[1]), int(m[2]), int(m[3]))
    m = _LONG.match(value)
    if m:
        month = m[1].capitalize()
        names = {name[:3]: i for i, name in enumerate(_MONTHS, start=1)}
        if month[:3] in names:
            return _dt.date(int(m[3]), names[month[:3]], int(m[2]))
    raise InputError(f"unreadable date {value!r}: expected YYYY-MM-DD or 'Month D, YYYY'")


def spoken(value: str | _dt.date, granularity: Granularity = "day") -> str:
    """``March 22, 1187`` (day), ``March 1187`` (month) or ``1187`` (year)."""
    d = to_date(value)
    if granularity == "year":
        return f"{d.year}"
    if granularity == "month":
        return f"{_MONTHS[d.month - 1]} {d.year}"
    return f"{_MONTHS[d.month - 1]} {d.day}, {d.year}"


def when(value: str | _dt.date, granularity: Granularity = "day") -> str:
    """The time phrase of a question: ``on March 22, 1187`` or ``in March 1187``."""
    return ("on " if granularity == "day" else "in ") + spoken(value, granularity)


def period(value: str | _dt.date, granularity: Granularity) -> tuple[int, ...]:
    """The key of the day, month or year ``value`` falls in (to compare dates by granularity)."""
    d = to_date(value)
    return {"day": (d.year, d.month, d.day), "month": (d.year, d.month), "year": (d.year,)}[granularity]
