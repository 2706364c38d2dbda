"""Cut a character corpus into overlapping token windows that keep their story position.

RoleRAG cuts its corpus into 600-token chunks overlapping by 100. A window never crosses a
scene (or a canon chunk): its position is then exactly the position of its text, which is what
lets a knowledge scope cut the graph built from it. Tokens are counted by a tokenizer-free rule
(words and punctuation marks), close to what BPE tokenizers count on English prose.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from incanon.canon.position import Position
from incanon.canon.store import CanonStore
from incanon.errors import ConfigError, InputError
from incanon.ingest.markdown_book import parse_markdown_book

_TOKEN = re.compile(r"\w+|[^\w\s]")
_CHAPTER_HEADING = re.compile(r"^##[ \t]+\S", re.M)


def count_tokens(text: str) -> int:
    """Approximate tokens: words and punctuation marks."""
    return len(_TOKEN.findall(text))


@dataclass(frozen=True)
class SourceChunk:
    """One window of corpus text, ready for extraction."""

    id: str
    text: str
    position: Position | None
    """Where the text happens; None for background text with no place in the story."""
    source: str = ""
    scene: str | None = None
    canon_chunk: str | None = None

    @property
    def tokens(self) -> int:
        return count_tokens(self.text)

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()[:16]


def windows(text: str, size: int = 600, overlap: int = 100) -> list[str]:
    """``text`` cut at token boundaries into windows of ``size`` tokens, each sharing
    ``overlap`` tokens with the previous one; the original spacing is kept."""
    if overlap >= size:
        raise ConfigError(f"chunk overlap ({overlap}) must be smaller than the chunk size ({size})")
    spans = [m.span() for m in _TOKEN.finditer(text)]
    if not spans:
        return []
    if len(spans) <= size:
        return [text.strip()]
    out: list[str] = []
    step = size - overlap
    for start in range(0, len(spans), step):
        end = min(start + size, len(spans))
        out.append(text[spans[start][0]:spans[end - 1][1]].strip())
        if end == len(spans):
            break
    return out


def _cut(base: str, text: str, size: int, overlap: int, **fields: object) -> list[SourceChunk]:
    parts = windows(text, size, overlap)
    return [
        SourceChunk(id=base if len(parts) == 1 else f"{base}~{i}", text=part, **fields)  # type: ignore[arg-type]
        for i, part in enumerate(parts)
    ]


def canon_chunks(store: CanonStore, work: str, size: int = 600, overlap: int = 100) -> list[SourceChunk]:
    """The work's canon chunks (re-cut only where one is longer than ``size``), in story order."""
    out: list[SourceChunk] = []
    for c in store.chunks(work):
        out += _cut(c.id, c.text, size, overlap, position=c.position, source=c.source or "canon",
                    scene=c.scene, canon_chunk=c.id)
    return out


def book_chunks(text: str, source: str, size: int = 600, overlap: int = 100) -> list[SourceChunk]:
    """A markdown book (``## Chapter`` headings, ``<!-- scene b-c-s -->`` markers) cut per scene."""
    book = parse_markdown_book(text, source=source)
    out: list[SourceChunk] = []
    for scene in book.scenes():
        out += _cut(f"{source}:{scene.id}", scene.text, size, overlap,
                    position=Position.parse(scene.position), source=source, scene=scene.id)
    return out


def text_chunks(text: str, source: str, size: int = 600, overlap: int = 100,
                position: Position | None = None) -> list[SourceChunk]:
    """Plain text cut into windows, all at ``position`` (None: background, no story time)."""
    return _cut(source, text, size, overlap, position=position, source=source)


def file_chunks(path: str | Path, size: int = 600, overlap: int = 100,
                position: Position | None = None) -> list[SourceChunk]:
    """A corpus file: a markdown book when it has ``## `` chapter headings, else plain text."""
    from incanon.reading import read_text

    p = Path(path).expanduser()
    text = read_text(p, "corpus file")
    if p.suffix.lower() in (".md", ".markdown") and _CHAPTER_HEADING.search(text):
        return book_chunks(text, p.name, size, overlap)
    return text_chunks(text, p.name, size, overlap, position)
