"""Reading a label (a stance, an error type, a verdict) out of a model's free text.

Judges and detectors are asked for one label from a fixed set; what comes back wanders: a
``Type: spatial`` line, ``[[spatial]]``, the label alone on the last line, a sentence that names
it, or one that names it only to deny it ("not in favor"). The caller says how a piece of text
maps to a label (``lookup``: synonyms, numbers, languages are the caller's); this module finds
the pieces, in the order that decides, and never guesses between several.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import TypeVar

T = TypeVar("T")

NEGATORS = r"(?:not|no|never|n't|without|hardly|nor)"
"""Words that, a few words before a label, say the text is *not* that label."""
_NEGATED_TAIL = re.compile(rf"(?:\b{NEGATORS}\b(?:\W+\w+){{0,2}}?\W+|n't\s+(?:\w+\s+){{0,2}}|\b{NEGATORS}\s+)$")


def is_negated(text: str, start: int) -> bool:
    """Whether the word at ``start`` is governed by a negation just before it ("does not
    FAVOR", "isn't supportive", "not in favor")."""
    before = text[max(0, start - 40):start].lower().replace("’", "'")
    return _NEGATED_TAIL.search(before) is not None


def labelled(text: str, lookup: Callable[[str], T | None], *, keys: Iterable[str]) -> T | None:
    """The label of ``KEY: VALUE`` (``is``, ``=``, ``-`` too; markdown bold allowed) with one of
    ``keys``, the last such line first; then ``[[VALUE]]``; then one of the last three lines when
    it is only a label (three words at most). None when nothing maps to a label."""
    names = "|".join(r"\s+".join(map(re.escape, key.split())) for key in keys)
    keyed = re.compile(rf"\b(?:{names})\s*\**\s*(?:is|=|:|-)\s*\**\s*([A-Za-z][A-Za-z _-]{{0,40}}|\d{{1,2}})",
                       re.IGNORECASE)
    bracketed = re.compile(r"\[\[\s*([A-Za-z _-]{1,40}|\d{1,2})\s*\]\]")
    for pattern in (keyed, bracketed):
        for match in reversed(list(pattern.finditer(text))):
            found = lookup(match.group(1))
            if found is not None:
                return found
    for line in reversed([ln for ln in text.strip().splitlines() if ln.strip()][-3:]):
        stripped = line.strip().strip("*#`'\".:- ")
        if len(stripped.split()) <= 3:
            found = lookup(stripped)
            if found is not None:
                return found
    return None


def named_labels(text: str, pattern: re.Pattern[str], lookup: Callable[[str], T | None]) -> tuple[set[T], bool]:
    """The labels ``text`` names with a match of ``pattern`` (its first group mapped by
    ``lookup``) and does not deny, and whether it denied any (``"not FAVOR"``)."""
    named: set[T] = set()
    denied = False
    for match in pattern.finditer(text):
        label = lookup(match.group(1))
        if label is None:
            continue
        if is_negated(text, match.start()):
            denied = True
        else:
            named.add(label)
    return named, denied
