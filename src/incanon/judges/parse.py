"""Robust score parsing for LLM judges.

Judges are asked to reason first and end with ``Score: N``. Real outputs wander: markdown bold,
"score = 1/1", "[[6]]", number words, the score repeated, reasoning after the score, or no score
at all. The parser reads from the end (the final verdict wins over scores quoted in the
reasoning), accepts only values in the allowed range, and returns ``None`` rather than a string
or a guess when nothing parses; the judge then makes one repair call.
"""

from __future__ import annotations

import re
from typing import Iterable

_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
    "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
}
_NUM = r"(\d+(?:\.\d+)?|" + "|".join(_WORDS) + r")"
# "Score: 1", "**Score**: 1", "final score - 6/7", "rating = 5", "Score is one".
_LABELLED = re.compile(
    r"(?:score|rating|grade|verdict)\W{0,4}(?:is|of|=|:|-)?\s*\**\s*" + _NUM + r"(?:\s*/\s*\d+)?",
    re.IGNORECASE,
)
_BRACKETED = re.compile(r"\[\[\s*" + _NUM + r"\s*\]\]", re.IGNORECASE)
_BARE = re.compile(r"^\W*" + _NUM + r"(?:\s*/\s*\d+)?\W*$", re.IGNORECASE)


def _to_number(token: str) -> float:
    token = token.lower()
    return float(_WORDS[token]) if token in _WORDS else float(token)


def parse_score(text: str, allowed: Iterable[int] | tuple[float, float]) -> int | None:
    """Return the judge's final score, or ``None`` if no allowed score can be read.

    ``allowed`` is a set of integers (e.g. ``{0, 1}``) or an inclusive ``(low, high)`` range.
    Looks at labelled scores anywhere (last one wins), then ``[[N]]``, then a last line that is
    only a number.
    """
    if isinstance(allowed, tuple) and len(allowed) == 2 and not isinstance(allowed, set):
        low, high = allowed
        ok = lambda v: low <= v <= high and float(v).is_integer()  # noqa: E731
    else:
        values = {float(v) for v in allowed}
        ok = lambda v: v in values  # noqa: E731

    for pattern in (_LABELLED, _BRACKETED):
        hits = [_to_number(m.group(1)) for m in pattern.finditer(text)]
        hits = [h for h in hits if ok(h)]
        if hits:
            return int(hits[-1])
    for line in reversed([ln for ln in text.strip().splitlines() if ln.strip()][-3:]):
        m = _BARE.match(line)
        if m and ok(_to_number(m.group(1))):
            return int(_to_number(m.group(1)))
    return None
