"""Two readings of a TimeChara judge's text: the authors' and incanon's.

The paper's numbers come from the authors' ``extract_score`` (their ``utils.py``), which takes the
judge's **last line**, finds every standalone digit 0-7 on it, and keeps the **last** one, with no
regard to the judge's scale or to what the digit means. When the last line has no such digit it
returns the text's last character (a string, which ``evaluate.py`` cannot sum). So

* "Score: 1 (the event is in chapter 5)" reads 5, even from a 0/1 judge;
* "Score: 0 out of 1" reads 1; "6/7" reads 7.

incanon's reading (:func:`incanon.llmout.parse_score`) also lets the final line decide but takes
the labelled score, ignores the "/7" of "6/7" and numbers outside the judge's scale, and falls
back to the rest of the text before giving up.

The paper protocol reads scores the authors' way (so the numbers are comparable with the
paper's); the incanon protocol reads them incanon's way; either can be chosen explicitly. The
reproduction below is written from the behaviour described above, not copied.
"""

from __future__ import annotations

import re
from typing import Callable, Iterable, Literal

from incanon.errors import ConfigError
from incanon.llmout import parse_score

Reading = Literal["authors", "incanon"]
READINGS: tuple[str, ...] = ("authors", "incanon")

#: Protocol → the score reading it implies.
PROTOCOL_READING: dict[str, str] = {"paper": "authors", "incanon": "incanon"}

ScoreParser = Callable[[str, "Iterable[int] | tuple[float, float]"], "int | None"]

# A digit 0-7 standing alone as a word: "\b" on both sides, as a regex word boundary sees it (so
# "1" in "1/1" and "5" in "chapter 5)" count, "10" and "a1" do not).
_AUTHORS_DIGIT = re.compile(r"\b([0-7])\b")


def authors_extract(text: str) -> int | str:
    """What the authors' ``extract_score`` returns for ``text``: the last standalone digit 0-7 of
    the last line (after stripping the text) as an int, else the text's last character (a str;
    ``''`` for an empty text, where theirs would fail)."""
    stripped = text.strip()
    last_line = stripped.split("\n")[-1]
    digits = _AUTHORS_DIGIT.findall(last_line)
    if digits:
        return int(digits[-1])
    return stripped[-1:] if stripped else ""


def authors_reading(text: str, allowed: Iterable[int] | tuple[float, float] = (0, 7)) -> int | None:
    """The authors' score as a number, or None where theirs is not one (the last character).

    ``allowed`` is accepted for the parser signature and deliberately ignored: the authors keep
    a 5 from a 0/1 judge, and so must a reproduction of their numbers.
    """
    value = authors_extract(text)
    return value if isinstance(value, int) else None


def incanon_reading(text: str, allowed: Iterable[int] | tuple[float, float]) -> int | None:
    """incanon's score (:func:`incanon.llmout.parse_score`)."""
    return parse_score(text, allowed)


def parser_for(reading: str) -> ScoreParser:
    """The score parser of a reading name."""
    if reading == "authors":
        return authors_reading
    if reading == "incanon":
        return incanon_reading
    raise ConfigError(f"unknown score reading {reading!r}; known: {', '.join(READINGS)}")


def reading_for(protocol: str, reading: str | None = None) -> str:
    """The reading an explicit ``reading`` or else ``protocol`` selects."""
    if reading is not None:
        parser_for(reading)  # validates the name
        return reading
    if protocol not in PROTOCOL_READING:
        raise ConfigError(f"unknown protocol {protocol!r}; known: {', '.join(PROTOCOL_READING)}")
    return PROTOCOL_READING[protocol]


def readings_differ(text: str, allowed: Iterable[int] | tuple[float, float]) -> bool:
    """True when the two readings give different scores for ``text`` (None counts as a value)."""
    return authors_reading(text) != incanon_reading(text, allowed)
