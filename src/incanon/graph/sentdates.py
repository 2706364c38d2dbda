"""Event time per sentence, on a date axis (biographies).

One extracted mention has one time (its ``when``), but its description can tell a life: "Born in
1867 … married in 1903 … died in 1934". Read whole at a cutoff of 1880, such a description would
show 1903 and 1934. So, at a cutoff, a description is read sentence by sentence: a sentence that
names a date is true from the latest date it names (``sentence_key``; "in 1903 he recalled his
1867 debut" becomes true in 1903); a sentence without one takes the time of the sentence before
it, the first ones the mention's own time. Only explicit dates and ages count here, never words
like "later" or "would" (which ``timing.resolve`` reads for a whole ``when`` field, and which
ordinary sentences are full of).

A mention the extraction gave no time gets the time of its surroundings (``surrounding_key``),
read from every chunk sentence that names it, the earliest of what they support:

* a sentence that names a date gives the earliest date of the clause naming the mention ("in
  1861 he published the Atlas, and in 1875 he founded the Society" dates each by its own), else
  its own earliest date (the entity is there from the start of the period the sentence tells);
* a sentence that **spans a life** (``spans_a_life``: dates ``SPAN_YEARS`` or more apart, a
  range or not, as a biography's opening "(1812–1889) … best known for the Atlas and the Society")
  dates nothing by its first date: only the clause naming the mention may date it ("in 1861 he
  published the Atlas, and in 1875 …"), or a bracketed span right after its name (a person's
  own "(1812–1889)"); a mention it names with no date of its own is true, at
  the latest, by the end of what the sentence spans, and takes that date when no other
  sentence supports an earlier one (the Atlas's own "published in 1861" does);
* an undated sentence takes the latest date of the nearest dated sentence before it in its
  paragraph (the narrative's present). A paragraph is the limit because a biography's opening
  paragraph sums up the whole life ("… edited her letters after 1868"): the next paragraph's
  undated "born in Lindau, the daughter of Jakob Voss" is not from 1868; an undated sentence
  telling the birth is from the birth date (``--born``), which is what the text supports.

Nothing supports a date: no time of its own (its chunk's position applies). Without this, an
undated mention in a biography's background text ("the Ninth Symphony") would be visible at
every date, and one named in the opening summary would be visible from the birth year.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Callable, Sequence

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


SPAN_YEARS = 20
"""Dates this many years apart in one sentence make it a summary of a life or an era, not the
telling of one event or post (a journey of 1841-1843, an organist's post from 1825 to 1838;
"1812–1889" is a life)."""

_BORN = re.compile(r"\b(?:born|birth(?:place)?)\b", re.I)
"""A sentence telling the birth is true from the birth date (``--born``) when it names no date."""

_CLAUSE = re.compile(r"[,;:()\[\]]|\s[–—-]\s|\band\b|\bbut\b|\bwhile\b")
"""Where a sentence's clauses part (a date range's own dash has no spaces and stays whole)."""


def spans_a_life(text: str, axis: Axis, born: _dt.date | None = None) -> bool:
    """``text`` names dates ``SPAN_YEARS`` or more apart (date axis only)."""
    starts = _starts(text, axis, born)
    return bool(starts) and (max(starts) - min(starts)).days >= SPAN_YEARS * 365


def _clause_key(sentence: str, groups: Sequence[Sequence[str]], axis: Axis, born: _dt.date | None) -> int | None:
    """The date ``sentence`` gives a mention through its own clauses: for each
    group of names (one thing; a relation has two), the earliest date of the first clause naming
    it that is no span itself; the latest over the groups; None when a group's clause has none."""
    clauses = _CLAUSE.split(sentence)
    keys: list[int] = []
    for names in groups:
        # "Tobiah Quell (1812–1889)": the dates in brackets right after a name are its own span.
        key = next((k for n in names if n.strip() for m in re.finditer(rf"{re.escape(n)}\s*\(([^)]*)\)", sentence, re.I)
                    if (k := sentence_key(m[1], axis, born, earliest=True)) is not None), None)
        if key is not None:
            keys.append(key)
            continue
        for clause in clauses:
            folded = clause.casefold()
            if any(n.strip() and n.casefold() in folded for n in names) and not spans_a_life(clause, axis, born):
                key = sentence_key(clause, axis, born, earliest=True)
                if key is not None:
                    break
        if key is None:
            return None
        keys.append(key)
    return max(keys) if keys else None


def mention_key(paragraphs: Sequence[Sequence[tuple[str, int | None]]], names_in: Callable[[str], bool],
                groups: Sequence[Sequence[str]], axis: Axis, born: _dt.date | None = None) -> int | None:
    """The time an undated mention takes from its chunk (the rules of the module doc):
    ``paragraphs`` hold each sentence with the date it inherits when it names none (None: no
    inherited date), ``names_in`` says whether a sentence names the mention, ``groups`` are the
    names a clause is searched for (a list per thing named). The earliest date any naming sentence supports, else the end
    of a life-spanning sentence naming it, else None."""
    supported: list[int] = []
    spans: list[int] = []
    for paragraph in paragraphs:
        for sentence, inherited in paragraph:
            if not names_in(sentence):
                continue
            # The clause naming it first: never earlier than the sentence's first date, and
            # "in 1861 he published the Atlas, and in 1875 he founded the Society" dates each.
            own = _clause_key(sentence, groups, axis, born)
            if own is not None:
                supported.append(own)
                continue
            if spans_a_life(sentence, axis, born):
                latest = sentence_key(sentence, axis, born)
                spans += [] if latest is None else [latest]
                continue
            own = sentence_key(sentence, axis, born, earliest=True)
            if own is None and born is not None and _BORN.search(sentence):
                own = Position.from_date(born).key  # "Voss was born in Lindau": there from the birth
            key = own if own is not None else inherited
            if key is not None:
                supported.append(key)
    if supported:
        return min(supported)
    return max(spans) if spans else None


def surrounding_key(chunk_text: str, surface: str, axis: Axis, born: _dt.date | None = None) -> int | None:
    """The time of an undated mention of ``surface`` from its chunk (see the module doc and
    ``mention_key``; date axis only)."""
    if axis is not Axis.DATE or not surface.strip():
        return None
    from incanon.sentences import split_sentences

    paragraphs: list[list[tuple[str, int | None]]] = []
    for paragraph in re.split(r"\n\s*\n", chunk_text):
        parts = split_sentences(paragraph)
        present: int | None = None  # the latest date of the nearest dated sentence before
        out: list[tuple[str, int | None]] = []
        for part in parts:
            out.append((part, present))
            own = sentence_key(part, axis, born)
            if own is not None:  # a life-spanning sentence's present is its end: later, never earlier
                present = own
        paragraphs.append(out)
    needle = surface.casefold()
    return mention_key(paragraphs, lambda s: needle in s.casefold(), [[surface]], axis, born)
