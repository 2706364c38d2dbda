"""A raw markdown book into a canon store TimeChara can build items from.

``incanon timechara build --book FILE.md``: the book is parsed (:func:`parse_markdown_book`),
its chapters go through the helper's scene extraction and participant steps
(:mod:`incanon.bench.timechara.scenes`), and the store receives

* the work, with the main characters (``--characters``) and a time point at the end of every
  chapter (``b-c``: the character knows that chapter and nothing later), plus every other name the
  helper used as a character without time points (so participant lists keep them);
* one scene per extracted scene at ``book-chapter-scene`` with its summary, speakers and
  participants (an empty list when the participant step failed: the build then says so);
* the scenes' text as chunks (``<scene>#k``) and the whole chapters as chunks ``b-c#k`` at the
  chapter's end (for the retrieval methods).

Items are then built from the store as for any canon (:func:`incanon.bench.timechara.build_items`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from incanon.bench.timechara.build import _canonical
from incanon.bench.timechara.scenes import ExtractionResult, extract_scenes
from incanon.canon.world import Character, Scene, TimePoint, WorkInfo, World
from incanon.errors import ConfigError, InputError
from incanon.ingest.encoding import read_book_text
from incanon.ingest.markdown_book import BookChapter, BookScene, ParsedBook, chunk_scenes, parse_markdown_book
from incanon.models.types import ChatModel
from incanon.templates import PromptLibrary


@dataclass
class BookOptions:
    """Settings of the scene extraction."""

    per_chapter: int = 5
    """Scenes asked for per chapter (the paper's N; it took 300 scenes per series)."""
    min_lines: int = 5
    """Spoken lines a scene should hold (asked of the helper, as the paper does)."""
    concurrency: int = 4
    json_mode: bool = True


_MD_CHAPTER = re.compile(r"^##[ \t]+\S", re.M)


def read_book(path: Path) -> ParsedBook:
    """The book's chapters: a markdown book with ``## Chapter`` headings is parsed as such
    (``InputError`` naming the file and line on bad structure); any other text (plain, a Project
    Gutenberg e-text, an EPUB) goes through the project's one book reader and chapter detector,
    its parts' chapters numbered on in one book."""
    if path.suffix.lower() in (".md", ".markdown"):
        text = read_book_text(path).text
        if _MD_CHAPTER.search(text):
            return parse_markdown_book(text, source=str(path))
    from incanon.ingest.reader import read_book as read_any

    found = read_any([path])
    book = ParsedBook(number=1, title=found.title, source=str(path))
    for n, c in enumerate(found.chapters, 1):
        scene = BookScene(f"1-{n}-1", 1, n, 1, c.text, c.line)
        book.chapters.append(BookChapter(number=n, title=c.title, line=c.line, scenes=[scene]))
    return book


def work_id_of(book: ParsedBook, path: Path) -> str:
    """A work id from the file name (``lanterns.md`` → ``lanterns``)."""
    slug = re.sub(r"[^a-z0-9]+", "-", path.stem.lower()).strip("-")
    return slug or "book"


def _names(names: list[str], main: list[Character]) -> list[str]:
    """Names as the canon writes them: a main character's name, alias or a full name holding it
    (:func:`_canonical`), or one word of exactly one main character's name ("Ines" → "Ines Harlow")."""
    out: list[str] = []
    for name in _canonical(names, main):
        words = name.lower().split()
        owners = [c.name for c in main if len(words) == 1 and words[0] in c.name.lower().split()]
        name = owners[0] if len(owners) == 1 else name
        if name not in out:
            out.append(name)
    return out


def chapter_time_points(book: ParsedBook) -> list[TimePoint]:
    """A time point at the end of every chapter of the book."""
    return [TimePoint(label=f"at the end of chapter {c.number} of book {book.number}",
                      position=f"{book.number}-{c.number}") for c in book.chapters]


def book_world(book: ParsedBook, work_id: str, title: str, main: list[str], found: ExtractionResult) -> World:
    """The canon of ``book`` with the extracted scenes (see the module docstring)."""
    if not main:
        raise ConfigError("a raw book needs --characters: the main characters to ask questions of")
    points = chapter_time_points(book)
    characters = [Character(name=n, time_points=points) for n in main]
    scenes: list[Scene] = []
    for s in found.scenes:
        speakers = _names(s.speakers, characters[:len(main)])
        # Whoever speaks is present, even when the helper forgot to list them; a scene whose
        # participant step failed keeps no list at all (speakers alone would make silent
        # bystanders "absent"), so the build makes no presence/absence item from it.
        participants = (_names(s.participants, characters[:len(main)]) if s.participants else [])
        participants += [n for n in speakers if participants and n not in participants]
        speakers = speakers if participants else []  # the canon keeps speakers among participants
        for name in dict.fromkeys(speakers + participants):
            if all(c.name != name for c in characters):
                characters.append(Character(name=name))
        scenes.append(Scene(id=s.id, position=s.id, summary=s.summary, speakers=speakers,
                            participants=participants))
    pieces = [BookScene(s.id, s.book, s.chapter, s.number, s.text, 0) for s in found.scenes]
    chunks = chunk_scenes(pieces, source=book.source)
    for chapter in book.chapters:
        whole = BookScene(f"{book.number}-{chapter.number}", book.number, chapter.number, 0,
                          "\n\n".join(x.text for x in chapter.scenes), chapter.line)
        chunks += [c.model_copy(update={"scene": None}) for c in chunk_scenes([whole], source=book.source)]
    info = WorkInfo(id=work_id, title=title, books={str(book.number): book.title} if book.title else {})
    return World(work=info, characters=characters, scenes=scenes, chunks=chunks)


async def ingest_book(path: Path, model: ChatModel, prompts: PromptLibrary, main: list[str], *,
                      work_id: str | None = None, options: BookOptions | None = None) -> tuple[World, ExtractionResult]:
    """Read ``path`` and extract its scenes and participants with ``model``."""
    options = options or BookOptions()
    if options.per_chapter < 1:
        raise ConfigError(f"--scenes-per-chapter must be at least 1, got {options.per_chapter}")
    book = read_book(path)
    if not book.chapters:
        raise InputError(f"{path}: no chapter found (chapter headings such as '## Chapter N: Title', 'CHAPTER XII' or 'XII.')")
    title = book.title or path.stem
    found = await extract_scenes(book.chapters, book.number, title, model, prompts,
                                 per_chapter=options.per_chapter, min_lines=options.min_lines,
                                 known_characters=main, concurrency=options.concurrency,
                                 json_mode=options.json_mode)
    return book_world(book, work_id or work_id_of(book, path), title, main, found), found


__all__ = ["BookOptions", "book_world", "chapter_time_points", "ingest_book", "read_book", "work_id_of"]
