"""Event time per sentence, on a date axis (biographies).

One extracted mention has one time (its ``when``), but its description can tell a life: "Born in
1867 … married in 1903 … died in 1934". Read whole at a cutoff of 1880, such a description would
show 1903 and 1934. So, at a cutoff, a description is read sentence by sentence: a sentence that
names a date is true from the latest date it names (``sentence_key``; "in 1903 he recalled his
1867 debut" becomes true in 1903); a sentence without one takes the time of the sentence before
it, the first ones the mention's own time. Only explicit dates and ages count here, never words
like "later" or "would" (which ``timing.resolve`` reads for a whole ``when`` field, and which
ordinary sentences are full of).

A mention the extraction gave no time gets the time of its surroundings (``surrounding_key``):
the earliest date of the chunk sentence that names it (the entity is there from the start of the
period the sentence tells), else the latest date of the nearest dated sentence before it in its
paragraph (the narrative's present). A paragraph is the limit because a biography's opening
paragraph sums up the whole life ("… edited her letters after 1868"): the next paragraph's
undated "born in Lindau, the daughter of Jakob Voss" is not from 1868. Nothing dated before it in
the paragraph: no time of its own (its chunk's position applies). Without this, an undated
mention in a biography's background text ("the Ninth Symphony") would be visible at every date.
"""

from __future__ import annotations

import datetime as _dt
import re

from incanon.canon.position import Axis, Position
from incanon.graph.timing import _YEAR, _age, _date, _span

_YEAR4 = re.compile(r"(?<!\d)(1\d{3}|20\d{2})(?!\d)")
"""A year from 1000 to 2099, whatever surrounds it."""

_SPLIT = re.compile(r"(?<=[.!?;])\s+(?=\S)")
"""Sentence ends inside a description (a semicolon too: extractions chain facts with it)."""


def sentences(text: str) -> list[str]:
    """The sentences of a short description (no abbreviation handling: cheap, and a wrong split
    only dates a piece by its own words or its neighbour's)."""
    return [s for s in _SPLIT.split(text.strip()) if s]


def _starts(text: str, axis: Axis, born: _dt.date | None) -> list[_dt.date]:
    """The first days of the dates and ages ``text`` names (date axis only)."""
    if axis is not Axis.DATE or not any(ch.isdigit() for ch in text):
        return []
    starts: list[_dt.date] = []
    for period in (_age(text, born), _span(text)):
        if period is not None:
            starts.append(period[0])
    for m in _YEAR.finditer(text):
        day = _date(int(m[1]))
        if day is not None and day.year >= 100:  # "at 3", "1 of 12": no year
            starts.append(day)
    # Four-digit years that ``timing`` leaves to its range and ISO forms ("mid-1819", "1822-24",
    # "1795-05-01"): here any year a sentence names counts, so none can slip through.
    starts += [d for d in (_date(int(m[1])) for m in _YEAR4.finditer(text)) if d is not None]
    return starts


def sentence_key(text: str, axis: Axis, born: _dt.date | None = None, *, earliest: bool = False) -> int | None:
    """The position key from which ``text`` is true: the latest date or age it names (``earliest``:
    the first; date axis only; None when it names none, or on a chapter axis)."""
    starts = _starts(text, axis, born)
    if not starts:
        return None
    return Position.from_date(min(starts) if earliest else max(starts)).key


def dated(text: str, axis: Axis, base: int | None, born: _dt.date | None = None) -> list[tuple[str, int | None]]:
    """Each sentence of ``text`` with the key it is true from: its own date, else the previous
    sentence's, the first undated ones ``base`` (the mention's time)."""
    out: list[tuple[str, int | None]] = []
    current = base
    for s in sentences(text):
        own = sentence_key(s, axis, born)
        if own is not None:
            current = own if base is None else max(own, base)
        out.append((s, current))
    return out


def visible_part(text: str, axis: Axis, base: int | None, cutoff: int, born: _dt.date | None = None) -> str:
    """The sentences of ``text`` true at ``cutoff`` (all of it when none names a later date)."""
    kept = [s for s, key in dated(text, axis, base, born) if key is None or key <= cutoff]
    return " ".join(kept)


def has_later(text: str, axis: Axis, base: int | None, cutoff: int, born: _dt.date | None = None) -> bool:
    """True when a sentence of ``text`` becomes true only after ``cutoff``."""
    if axis is not Axis.DATE or not any(ch.isdigit() for ch in text):
        return False
    return any(key is not None and key > cutoff for _, key in dated(text, axis, base, born))


def surrounding_key(chunk_text: str, surface: str, axis: Axis, born: _dt.date | None = None) -> int | None:
    """The time of an undated mention of ``surface`` from its chunk (see the module doc): its
    sentence's earliest date, else the latest date of the nearest dated sentence before it in
    its paragraph (date axis only)."""
    if axis is not Axis.DATE or not surface.strip():
        return None
    from incanon.sentences import split_sentences

    needle = surface.casefold()
    for paragraph in re.split(r"\n\s*\n", chunk_text):
        parts = split_sentences(paragraph)
        for i, part in enumerate(parts):
            if needle not in part.casefold():
                continue
            own = sentence_key(part, axis, born, earliest=True)
            if own is not None:
                return own
            before = [k for k in (sentence_key(p, axis, born) for p in parts[:i]) if k is not None]
            return before[-1] if before else None
    return None
