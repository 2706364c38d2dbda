"""Sentence splitting, one way everywhere: pySBD's rule-based segmenter.

Regular expressions break on abbreviations ("Mr. Hale", "Dr. Brand", "at 4 p.m. sharp"),
initials and decimals; pySBD (the Golden Rules segmenter) handles them, in English, Chinese and
more than twenty other languages, with no model and no download.
"""

from __future__ import annotations

import threading
from functools import lru_cache

_lock = threading.Lock()


@lru_cache(maxsize=8)
def _segmenter(language: str):  # noqa: ANN202 - pysbd's Segmenter, imported lazily
    import pysbd

    try:
        return pysbd.Segmenter(language=language, clean=False)
    except ValueError:
        return pysbd.Segmenter(language="en", clean=False)


def split_sentences(text: str, language: str = "en") -> list[str]:
    """The sentences of ``text`` (stripped, empty ones dropped); ``language`` an ISO 639-1 code
    (unknown codes fall back to English rules)."""
    if not text.strip():
        return []
    with _lock:  # a Segmenter keeps state while it segments
        pieces = _segmenter(language).segment(text)
    return [p.strip() for p in pieces if p.strip()]
