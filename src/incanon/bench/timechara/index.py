"""``incanon timechara index``: a chunk store of the user's own copy of a series' books.

The paper's RAG baselines retrieve paragraphs from the books, cut at the character's
book-chapter. The books are not shipped (and the authors' Chroma files are not usable here), so
users index their own copy. Two layouts:

* plain text, one file per chapter, the numbers in the path giving the position at the series'
  depth, as the authors' ``data/transcript`` folders do: ``book_1/chapter_3.txt`` → ``1-3``, The
  Lord of the Rings ``volume_1/book_2_chapter_10.txt`` → ``1-2-10``;
* markdown books (``# Book N`` / ``## Chapter M`` headings, see ``incanon.ingest``): each chapter
  of a two-level series.

Chunks are about 1,000 characters with 200 characters of overlap, the authors' splitter
settings, cut at paragraph, then sentence, then word boundaries. The store gets one work per
series, named by its slug (``harry_potter``...), which ``CharacterResolver`` uses for published
rows of that series.
"""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from incanon.bench.timechara.published import Series, series_info
from incanon.canon.world import Chunk, World, WorkInfo
from incanon.errors import ConfigError, InputError
from incanon.ingest.encoding import read_book_text
from incanon.ingest.markdown_book import parse_markdown_book
from incanon.logs import NOTICE
from incanon.reading import check_file_or_folder, walk_files

log = logging.getLogger(__name__)

CHUNK_CHARS = 1000
OVERLAP_CHARS = 200
_TEXT_SUFFIXES = {".txt", ".md", ".markdown"}


@dataclass(frozen=True)
class ChapterText:
    """One chapter's text at its position."""

    position: str
    text: str
    source: str


def split_chars(text: str, size: int = CHUNK_CHARS, overlap: int = OVERLAP_CHARS) -> list[str]:
    """Pieces of at most ``size`` characters, each starting ``overlap`` characters before the
    previous one ended, cut at the last paragraph, sentence or word break that fits."""
    text = text.strip()
    pieces: list[str] = []
    start = 0
    while start < len(text):
        end = min(len(text), start + size)
        if end < len(text):
            window = text[start:end]
            for sep in ("\n\n", "\n", ". ", " "):
                cut = window.rfind(sep)
                if cut > size // 2:
                    end = start + cut + len(sep)
                    break
        piece = text[start:end].strip()
        if piece:
            pieces.append(piece)
        if end >= len(text):
            break
        start = max(end - overlap, start + 1)
        space = text.find(" ", start)
        start = space + 1 if 0 <= space < end else start
    return pieces


def _from_path(path: Path, root: Path, depth: int) -> str:
    relative = path.relative_to(root) if path != root else Path(path.name)
    numbers = re.findall(r"\d+", str(relative.with_suffix("")))
    if len(numbers) != depth:
        raise InputError(f"expected {depth} numbers in the path ({'-'.join(['N'] * depth)}), found "
                         f"{len(numbers)}: name chapter files like book_1/chapter_3.txt"
                         + (" or volume_1/book_2_chapter_10.txt" if depth == 3 else ""), source=str(path))
    return "-".join(str(int(n)) for n in numbers)


def read_chapters(paths: Sequence[Path], series: Series) -> list[ChapterText]:
    """Every chapter of the given files and folders, with its position."""
    depth = len(series.levels)
    chapters: list[ChapterText] = []
    for given in paths:
        given = Path(given).expanduser()
        if not os.path.lexists(given):
            raise InputError("no such file or folder", source=str(given))
        given = check_file_or_folder(given, "book file or folder")
        files = [p for p in walk_files(given, "book folder") if p.suffix.lower() in _TEXT_SUFFIXES
                 and not p.name.startswith(".")] if given.is_dir() else [given]
        root = given if given.is_dir() else given.parent
        for file in files:
            read = read_book_text(file)  # the project's book-file decoding: Latin-1, UTF-16 too
            if read.note:
                log.log(NOTICE, "%s: %s", file, read.note)
            text = read.text
            if not text.strip():
                raise InputError("book file is empty", source=str(file))
            if file.suffix.lower() in (".md", ".markdown") and re.search(r"(?m)^##\s", text):
                if depth != 2:
                    raise InputError(f"{series.title} positions have {depth} levels; markdown books give "
                                     "book-chapter: use one text file per chapter instead", source=str(file))
                book = parse_markdown_book(text, source=str(file))
                for chapter in book.chapters:
                    body = "\n\n".join(s.text for s in chapter.scenes)
                    chapters.append(ChapterText(f"{book.number}-{chapter.number}", body, str(file)))
            else:
                chapters.append(ChapterText(_from_path(file, root, depth), text, str(file)))
    if not chapters:
        raise InputError("no chapter text found (.txt or .md files)", source=", ".join(str(p) for p in paths))
    seen: dict[str, str] = {}
    for ch in chapters:
        if ch.position in seen:
            raise InputError(f"chapter {ch.position} appears twice (also in {seen[ch.position]})", source=ch.source)
        seen[ch.position] = ch.source
    return chapters


def series_world(series_name: str, paths: Sequence[Path]) -> World:
    """The chunk-only canon ``World`` of a series' books."""
    series = series_info(series_name)
    if series is None:
        raise ConfigError(f"unknown series {series_name!r}; known: harry_potter, the_lord_of_the_rings, "
                          "twilight, hunger_games")
    chunks = []
    for chapter in read_chapters(paths, series):
        for k, piece in enumerate(split_chars(chapter.text)):
            chunks.append(Chunk(id=f"{chapter.position}#{k}", position=chapter.position, text=piece,
                                source=chapter.source))
    info = WorkInfo(id=series.slug, title=series.title, author=series.author,
                    books={str(n): t for n, t in series.books.items()},
                    description=f"chunk index of the user's copy ({'-'.join(series.levels)} positions)")
    return World(work=info, chunks=chunks)
