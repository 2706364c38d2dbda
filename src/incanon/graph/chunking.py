"""Cut a character corpus into overlapping token windows that keep their story position.

RoleRAG cuts its corpus into 600-token chunks overlapping by 100. A window never crosses a
scene (or a canon chunk): its position is then exactly the position of its text, which is what
lets a knowledge scope cut the graph built from it. Tokens are counted by ``incanon.tokens``
(the embedded model's tokenizer, or a documented estimate that counts CJK per character).

A corpus file is identified by its path as given (relative to the working directory when under
it) and by its content: two ``notes.txt`` from different folders are two documents, and the
same content given twice under two paths is indexed once.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from pathlib import Path

from incanon.canon.position import Position
from incanon.canon.store import CanonStore
from incanon.errors import ConfigError
from incanon.ingest.markdown_book import parse_markdown_book
from incanon.logs import NOTICE
from incanon.tokens import count_tokens, weighted_token_spans

_CHAPTER_HEADING = re.compile(r"^##[ \t]+\S", re.M)
log = logging.getLogger(__name__)

__all__ = ["SourceChunk", "Document", "book_chunks", "canon_chunks", "count_tokens", "document_id",
           "file_chunks", "read_document", "text_chunks", "windows"]


@dataclass(frozen=True)
class SourceChunk:
    """One window of corpus text, ready for extraction."""

    id: str
    text: str
    position: Position | None
    """Where the text happens; None for background text with no place in the story."""
    source: str = ""
    """The document (corpus file path, or ``canon``) the text comes from."""
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
    ``overlap`` tokens with the previous one; the original spacing is kept.

    The text is tokenized once: each span carries the tokens it holds (a CJK character is
    often two or three byte tokens), so windows are cut by cumulative token counts and the
    next one starts ``size - overlap`` tokens on, whatever the script. A window whose cut text
    re-tokenizes longer is then shrunk by about its excess at a time, not by one span per
    re-tokenisation (that took 51,054 tokenizer calls on a tenth of a Chinese novel)."""
    if overlap >= size:
        raise ConfigError(f"chunk overlap ({overlap}) must be smaller than the chunk size ({size})")
    spans, weights = weighted_token_spans(text)
    if not spans or not text.strip():
        return []
    n = len(spans)
    cum = [0]
    for w in weights:
        cum.append(cum[-1] + w)
    if cum[-1] <= size:
        return [text.strip()]

    def word_start(i: int) -> bool:
        # A cut inside a word ("Be|ethoven") tokenizes differently once cut: prefer word starts.
        return i <= 0 or i >= n or text[spans[i][0]].isspace() or text[spans[i][0] - 1].isspace()

    out: list[str] = []
    step = size - overlap
    start = 0
    while start < n:
        end = min(n, max(start + 1, bisect_right(cum, cum[start] + size) - 1))
        if cum[end] - cum[start] > end - start:
            # Characters of several tokens (CJK): their cut text re-tokenizes a few tokens longer
            # more often than not, so aim a little short and count once instead of shrinking.
            end = min(n, max(start + 1, bisect_right(cum, cum[start] + size - max(2, size // 50)) - 1))
        a = next((i for i in range(start, min(start + 8, end)) if word_start(i)), start)
        b = next((i for i in range(end, max(end - 8, a + 1), -1) if word_start(i)), end)
        piece = text[spans[a][0]:spans[b - 1][1]].strip()
        excess = count_tokens(piece) - size
        while b - 1 > a and excess > 0:  # a cut text can tokenize a little longer
            # One span at a time for a small excess (as always for spaced text); about half
            # the excess at a time for a large one, so a few re-tokenisations suffice.
            need = 1 if excess <= 2 else excess // 2
            dropped = 0
            while b - 1 > a and dropped < need:
                b -= 1
                dropped += weights[b]
            piece = text[spans[a][0]:spans[b - 1][1]].strip()
            excess = count_tokens(piece) - size
        if piece:
            out.append(piece)
        if end == n:
            break
        start = max(start + 1, bisect_left(cum, cum[start] + step))
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


def document_id(path: str | Path) -> str:
    """A corpus file's identity: its path relative to the working directory when it lies under
    it, else its absolute path (POSIX separators either way)."""
    p = Path(path).expanduser().resolve()
    try:
        rel = p.relative_to(Path.cwd().resolve())
        return rel.as_posix()
    except ValueError:
        return p.as_posix() if os.sep == "/" else str(p).replace(os.sep, "/")


@dataclass(frozen=True)
class Document:
    """A corpus file read and identified."""

    id: str
    path: Path
    text: str

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()[:16]

    @property
    def is_book(self) -> bool:
        return self.path.suffix.lower() in (".md", ".markdown") and bool(_CHAPTER_HEADING.search(self.text))


def read_document(path: str | Path) -> Document:
    """Read a corpus file through the project's one book-file reader (any encoding, a Gutenberg
    header and licence left out; markdown kept whole, its scene markers place the chunks), with
    one-line errors for bad files; what the reader noticed is logged."""
    from incanon.ingest.bookfile import read_book_file

    p = Path(path).expanduser()
    # Read first: a loop or a FIFO is refused before resolve() sees it.
    read = read_book_file(p, markdown=False, what="corpus file")
    for note in read.notes:
        log.log(NOTICE, "%s", note)
    return Document(document_id(p), p, read.text)


def document_chunks(doc: Document, size: int = 600, overlap: int = 100,
                    position: Position | None = None) -> list[SourceChunk]:
    """A document's chunks: a markdown book per scene, else plain text at ``position``."""
    if doc.is_book:
        return book_chunks(doc.text, doc.id, size, overlap)
    return text_chunks(doc.text, doc.id, size, overlap, position)


def file_chunks(path: str | Path, size: int = 600, overlap: int = 100,
                position: Position | None = None) -> list[SourceChunk]:
    """A corpus file: a markdown book when it has ``## `` chapter headings, else plain text."""
    return document_chunks(read_document(path), size, overlap, position)


@dataclass
class Corpus:
    """Corpus files read, identified and cut: what one ``graph build`` indexes."""

    documents: list[Document]
    chunks: list[SourceChunk]
    skipped: list[str]
    """Notes on files left out (the same content under another path, or no text)."""


def corpus_chunks(paths: list[str | Path], size: int = 600, overlap: int = 100,
                  position: Position | None = None) -> Corpus:
    """Read every file first (a bad file fails before anything is written), identify each by
    path and content, and cut them; a file whose content another given path already has, or
    with no text, is skipped with a note."""
    docs: list[Document] = []
    chunks: list[SourceChunk] = []
    skipped: list[str] = []
    by_digest: dict[str, str] = {}
    seen: set[str] = set()
    for path in paths:
        doc = read_document(path)
        if doc.id in seen:
            continue
        seen.add(doc.id)
        if doc.digest in by_digest:
            skipped.append(f"{doc.id}: same content as {by_digest[doc.digest]}, indexed once")
            continue
        cut = document_chunks(doc, size, overlap, position)
        if not cut:
            skipped.append(f"{doc.id}: no text to index")
            continue
        by_digest[doc.digest] = doc.id
        docs.append(doc)
        chunks += cut
    return Corpus(docs, chunks, skipped)
