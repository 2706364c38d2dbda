"""Passages for retrieval, cut as CoSER's retrieval cuts them.

CoSER's ``gca_evaluation/agent.py`` splits every retrieval document with LangChain's
``RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=200)`` (default separators,
separator kept at the start of the following piece, whitespace stripped). The behaviour is
re-implemented here so that the same documents give the same passages without depending on
LangChain:

1. Take the first separator of ``"\\n\\n"``, ``"\\n"``, ``" "``, ``""`` that occurs in the text (the
   empty one cuts between characters) and cut before each occurrence.
2. Pieces shorter than ``size`` are packed greedily into passages of at most ``size``
   characters; when a passage closes, pieces are dropped from its front until what remains is
   at most ``overlap`` characters long and leaves room for the next piece, and the remainder
   opens the next passage.
3. A piece of ``size`` characters or more is cut again with the next separators.
"""

from __future__ import annotations

import re
from typing import Sequence

SEPARATORS = ("\n\n", "\n", " ", "")


def _cut(text: str, separator: str) -> list[str]:
    # Each separator starts the piece after it, as the reference keeps them.
    if not separator:
        return [c for c in text]
    parts = re.split(f"({re.escape(separator)})", text)
    pieces = [parts[0]] + [parts[i] + parts[i + 1] for i in range(1, len(parts) - 1, 2)]
    return [p for p in pieces if p]


def _pack(pieces: Sequence[str], size: int, overlap: int) -> list[str]:
    passages: list[str] = []
    window: list[str] = []
    length = 0
    for piece in pieces:
        if length + len(piece) > size and window:
            joined = "".join(window).strip()
            if joined:
                passages.append(joined)
            while length > overlap or (length + len(piece) > size and length > 0):
                length -= len(window[0])
                window = window[1:]
        window.append(piece)
        length += len(piece)
    joined = "".join(window).strip()
    if joined:
        passages.append(joined)
    return passages


def split_text(text: str, size: int = 1000, overlap: int = 200,
               separators: Sequence[str] = SEPARATORS) -> list[str]:
    """``text`` as overlapping passages of at most ``size`` characters (longer only when a single
    character run cannot be cut, which the empty separator rules out)."""
    separator, rest = separators[-1], ()
    for i, candidate in enumerate(separators):
        if candidate == "" or candidate in text:
            separator, rest = candidate, tuple(separators[i + 1:])
            break
    out: list[str] = []
    small: list[str] = []
    for piece in _cut(text, separator):
        if len(piece) < size:
            small.append(piece)
            continue
        if small:
            out.extend(_pack(small, size, overlap))
            small = []
        out.extend(split_text(piece, size, overlap, rest) if rest else [piece])
    if small:
        out.extend(_pack(small, size, overlap))
    return out


def split_documents(documents: Sequence[str], size: int = 1000, overlap: int = 200) -> list[str]:
    """Every document's passages, in document order (a passage's position is its index)."""
    return [passage for doc in documents for passage in split_text(doc, size, overlap)]
