"""A judge's numeric score out of its text.

Judges are asked to reason first and give the score on the final line (TimeChara's prompts:
"print the score on its own line ... repeat just the selected score again by itself on a new
line"; incanon's: end with ``Score: N``). The authors' ``extract_score`` reads the last line
only, so the **final line decides**: a "score of 0" quoted in the reasoning never beats a bare
``1`` at the end. Real outputs wander: markdown bold, "score = 1/1", "[[6]]", number words, or
no score on the last line at all; only then is the rest of the text read (the last labelled
score wins). Only values in the allowed range count, and ``None`` (never a string or a guess)
comes back when nothing parses; the judge then makes one repair call.
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
# A number standing alone on the final line ("I give it a 1."), not the "/7" of "6/7".
_TOKEN = re.compile(r"(?<![\w./])(\d+(?:\.\d+)?)(?![\w]|\.\d)(?!\s*/\s*\d)")


def _to_number(token: str) -> float:
    token = token.lower()
    return float(_WORDS[token]) if token in _WORDS else float(token)


def parse_score(text: str, allowed: Iterable[int] | tuple[float, float]) -> int | None:
    """Return the judge's final score, or ``None`` if no allowed score can be read.

    ``allowed`` is a set of integers (e.g. ``{0, 1}``) or an inclusive ``(low, high)`` range.
    The final non-empty line decides when it holds an allowed score; otherwise labelled scores
    anywhere (last one wins), then ``[[N]]``, then one of the last lines that is only a number.
    """
    if isinstance(allowed, tuple) and len(allowed) == 2 and not isinstance(allowed, set):
        low, high = allowed
        ok = lambda v: low <= v <= high and float(v).is_integer()  # noqa: E731
    else:
        values = {float(v) for v in allowed}
        ok = lambda v: v in values  # noqa: E731

    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    if lines:
        final = _from_line(lines[-1], ok)
        if final is not None:
            return final
    for pattern in (_LABELLED, _BRACKETED):
        hits = [_to_number(m.group(1)) for m in pattern.finditer(text)]
        hits = [h for h in hits if ok(h)]
        if hits:
            return int(hits[-1])
    for line in reversed(lines[-3:]):
        m = _BARE.match(line)
        if m and ok(_to_number(m.group(1))):
            return int(_to_number(m.group(1)))
    return None


def _from_line(line: str, ok) -> int | None:  # noqa: ANN001 - a predicate on floats
    """The score written on one line: labelled, ``[[N]]``, the line alone, or the last number
    standing alone on it (the authors' rule)."""
    for pattern in (_LABELLED, _BRACKETED):
        hits = [_to_number(m.group(1)) for m in pattern.finditer(line)]
        hits = [h for h in hits if ok(h)]
        if hits:
            return int(hits[-1])
    m = _BARE.match(line)
    if m and ok(_to_number(m.group(1))):
        return int(_to_number(m.group(1)))
    hits = [float(t) for t in _TOKEN.findall(line)]
    hits = [h for h in hits if ok(h)]
    return int(hits[-1]) if hits else None
