"""Sentence splitting, one way everywhere: pySBD's rule-based segmenter.

Regular expressions break on abbreviations ("Mr. Hale", "Dr. Brand", "at 4 p.m. sharp"),
initials and decimals; pySBD (the Golden Rules segmenter) handles them, in English, Chinese and
more than twenty other languages, with no model and no download.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache

_lock = threading.Lock()
_LINE = re.compile(r"[^\n]+")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
# Closing quotes and brackets belong to the sentence they close; pySBD's Chinese rules put them
# at the start of the next one.
_CLOSERS = "”’」』）)]》"


def _closes(text: str, previous: tuple[int, int], at: int) -> bool:
    """Whether the character at ``at`` closes the sentence ``previous`` (a curly closer right
    after it, or a straight double quote that ``previous`` left open)."""
    if text[previous[1]:at].strip():
        return False
    char = text[at]
    return char in _CLOSERS or (char == '"' and text[previous[0]:previous[1]].count('"') % 2 == 1)


@lru_cache(maxsize=16)
def _segmenter(language: str, spans: bool = False):  # noqa: ANN202 - pysbd's Segmenter, imported lazily
    import pysbd

    try:
        return pysbd.Segmenter(language=language, clean=False, char_span=spans)
    except ValueError:
        return pysbd.Segmenter(language="en", clean=False, char_span=spans)


def split_sentences(text: str, language: str = "en") -> list[str]:
    """The sentences of ``text`` (stripped, empty ones dropped); ``language`` an ISO 639-1 code
    (unknown codes fall back to English rules)."""
    if not text.strip():
        return []
    with _lock:  # a Segmenter keeps state while it segments
        pieces = _segmenter(language).segment(text)
    return [p.strip() for p in pieces if p.strip()]


def sentence_spans(text: str, language: str | None = None) -> list[tuple[int, int]]:
    """``(start, end)`` offsets in ``text`` of every sentence, without surrounding spaces. A line
    break always ends a sentence (verse, dialogue lines and headings stay apart); closing quotes
    stay with the sentence they close. ``language``: an ISO 639-1 code, or None to read each line
    as Chinese when it has CJK characters and as English otherwise."""
    spans: list[tuple[int, int]] = []
    for line in _LINE.finditer(text):
        if not line.group().strip():
            continue
        lang = language or ("zh" if _CJK.search(line.group()) else "en")
        with _lock:
            pieces = _segmenter(lang, True).segment(line.group())
        for piece in pieces:
            a, b = line.start() + piece.start, line.start() + piece.end
            if spans and spans[-1][1] <= a and spans[-1][0] >= line.start():
                while a < b and _closes(text, spans[-1], a):
                    a += 1
                    spans[-1] = (spans[-1][0], a)
            while a < b and text[a].isspace():
                a += 1
            while b > a and text[b - 1].isspace():
                b -= 1
            if a < b:
                spans.append((a, b))
    return spans
