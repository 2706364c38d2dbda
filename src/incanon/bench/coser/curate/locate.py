"""Find a plot's raw text: match the model's first and last sentences to the source, fuzzily.

Models rarely copy a sentence character for character (quotes, dashes, a dropped word), so each
quoted sentence is matched to the most similar sentence of the chunk (``difflib`` ratio, the
same lexical similarity CoSER uses), also trying pairs of adjacent sentences in case the model
merged two. A match below ``threshold`` counts as not found.

A line break ends a sentence span (``incanon.sentences``), so a sentence an edition breaks over
several lines, blank lines included, is several spans: runs of spans are tried while a span ends
without sentence-final punctuation, or the last words of a plot's last sentence would be left out
(Pride and Prejudice, chapter 1: "... its solace was visiting and" / "news.").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher

from incanon.sentences import sentence_spans



@dataclass(frozen=True)
class Match:
    start: int
    end: int
    score: float


MAX_RUN = 8
"""Spans one sentence may be broken into (lines of a wrapped or double-spaced edition)."""

_ENDS = re.compile(r"[.!?…。！？][\"'”’)\]_*]*$")
"""Sentence-final punctuation, closing quotes and brackets (and emphasis marks) after it."""


def _runs(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Every span, every adjacent pair (a model may merge two sentences), and longer runs of
    spans while each ends without sentence-final punctuation (one sentence over several lines)."""
    out = list(spans)
    for i, (a, b) in enumerate(spans):
        for j in range(i + 1, min(i + MAX_RUN, len(spans))):
            if j > i + 1 and _ENDS.search(text[spans[j - 1][0]:spans[j - 1][1]]):
                break
            out.append((a, spans[j][1]))
    return out


def _norm(text: str) -> str:
    text = text.replace("“", '"').replace("”", '"').replace("‘", "'").replace("’", "'")
    return " ".join(text.split()).casefold()


def find_sentence(text: str, target: str | None, *, after: int = 0, threshold: float = 0.6,
                  spans: list[tuple[int, int]] | None = None) -> Match | None:
    """The span of ``text`` (at or after ``after``) most like ``target``; None below ``threshold``."""
    if not target or not target.strip():
        return None
    exact = text.find(target.strip(), after)
    if exact >= 0:
        return Match(exact, exact + len(target.strip()), 1.0)
    goal = _norm(target)
    spans = [s for s in (spans or sentence_spans(text)) if s[0] >= after]
    candidates = _runs(text, spans)
    best: Match | None = None
    matcher = SequenceMatcher(autojunk=False)
    matcher.set_seq2(goal)
    for a, b in candidates:
        matcher.set_seq1(_norm(text[a:b]))
        if matcher.real_quick_ratio() < threshold or matcher.quick_ratio() < threshold:
            continue
        score = matcher.ratio()
        if best is None or score > best.score:
            best = Match(a, b, score)
    return best if best is not None and best.score >= threshold else None


def locate_plot(text: str, first: str | None, last: str | None, *, threshold: float = 0.6,
                to_end_if_missing: bool = False) -> tuple[int, int] | None:
    """(start, end) of the plot between its first and last sentence, or None if not found.

    With ``to_end_if_missing`` a plot whose last sentence is not found runs to the end of the
    text (a plot cut off by the chunk's end).
    """
    spans = sentence_spans(text)
    head = find_sentence(text, first, threshold=threshold, spans=spans)
    if head is None:
        return None
    tail = find_sentence(text, last, after=head.start, threshold=threshold, spans=spans)
    if tail is None:
        return (head.start, len(text)) if to_end_if_missing else None
    return head.start, max(head.end, tail.end)
