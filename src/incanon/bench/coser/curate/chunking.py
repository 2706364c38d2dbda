"""Static chunking: chapter boundaries (:mod:`incanon.ingest.chapters`), then merge small and split large.

Adjacent sections are merged until a chunk reaches half the budget; a chunk over the budget is
split at paragraph (then sentence, then word) boundaries. Tokens are counted by
``incanon.tokens.count_tokens`` (the embedded GGUF's vocabulary, or the documented estimate), as
every context budget of incanon is.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from incanon.ingest.chapters import CHAPTER_PATTERNS, Heading, chapter_at, find_headings
from incanon.tokens import count_tokens


@dataclass
class Chunk:
    """A piece of the book sent to extraction in one call."""

    index: int
    start: int
    end: int
    text: str
    chapters: list[Heading] = field(default_factory=list)
    """Chapter headings inside this chunk."""

    @property
    def tokens(self) -> int:
        return count_tokens(self.text)


_BOUNDARIES = (r"\n[ \t]*\n", r"(?<=[.!?…])[\"”’')\]]*\s+", r"\s+")


def _split_large(text: str, start: int, max_tokens: int, level: int = 0) -> list[tuple[int, int]]:
    """Cut ``text`` (at ``start`` in the book) into spans of at most ``max_tokens``: greedy at
    paragraph breaks, a paragraph that is too long at sentence ends, then at spaces."""
    if count_tokens(text) <= max_tokens:
        return [(start, start + len(text))]
    if level >= len(_BOUNDARIES):
        width = max(1, len(text) * max_tokens // max(1, count_tokens(text)))
        return [(start + i, start + min(len(text), i + width)) for i in range(0, len(text), width)]
    cuts = [m.end() for m in re.finditer(_BOUNDARIES[level], text)]
    pieces = [(a, b) for a, b in zip([0, *cuts], [*cuts, len(text)]) if b > a]
    spans: list[tuple[int, int]] = []
    begin = end = 0
    for a, b in pieces:
        if count_tokens(text[begin:b]) <= max_tokens:
            end = b
            continue
        if end > begin:
            spans.append((start + begin, start + end))
        if count_tokens(text[a:b]) > max_tokens:
            spans.extend(_split_large(text[a:b], start + a, max_tokens, level + 1))
            begin = end = b
        else:
            begin, end = a, b
    if end > begin:
        spans.append((start + begin, start + end))
    return spans


def chunk_text(text: str, max_tokens: int = 8192, min_tokens: int | None = None) -> list[Chunk]:
    """Chunks of at most ``max_tokens``, cut at headings where possible.

    Sections are merged until a chunk holds ``min_tokens`` (default: half of ``max_tokens``).
    """
    if max_tokens < 16:
        raise ValueError("max_tokens must be at least 16")
    low = max_tokens // 2 if min_tokens is None else min_tokens
    headings = find_headings(text)
    bounds = sorted({0, *(h.start for h in headings), len(text)})
    sections = [(a, b) for a, b in zip(bounds, bounds[1:]) if text[a:b].strip()]
    spans: list[tuple[int, int]] = []
    pending: int | None = None  # start of merged small sections not yet emitted
    for a, b in sections:
        begin = a if pending is None else pending
        tokens = count_tokens(text[begin:b])
        if tokens < low:
            pending = begin
            continue
        # Balanced pieces: a 1.1-budget chapter gives two halves, not a chunk and a sliver.
        limit = min(max_tokens, math.ceil(tokens / math.ceil(tokens / max_tokens) * 1.15))
        spans.extend(_split_large(text[begin:b], begin, limit))
        pending = None
    if pending is not None:
        # A small tail joins the previous chunk when the two still fit.
        if spans and count_tokens(text[spans[-1][0] :]) <= max_tokens:
            spans[-1] = (spans[-1][0], len(text))
        else:
            spans.extend(_split_large(text[pending:], pending, max_tokens))
    chunks = []
    for i, (a, b) in enumerate(spans):
        inside = [h for h in headings if a <= h.start < b and h.kind == "chapter"]
        chunks.append(Chunk(index=i, start=a, end=b, text=text[a:b], chapters=inside))
    return chunks


__all__ = ["CHAPTER_PATTERNS", "Chunk", "Heading", "chapter_at", "chunk_text", "count_tokens", "find_headings"]
