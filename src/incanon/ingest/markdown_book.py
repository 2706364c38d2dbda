"""Read a book written as markdown into chapters and scenes, and cut it into position-stamped chunks.

The form (one book per file)::

    # Book 1: The Wall-Lamps
    ## Chapter 1: Oil and Wick
    <!-- scene 1-1-1 -->
    prose...
    <!-- scene 1-1-2 -->
    prose...
    ## Chapter 2: The Counting House
    ...

* The book heading is optional; its number (``# Book 2: ...`` or ``# 2. ...``) wins over the
  ``book=`` argument only if they agree, and without either the book is number 1.
* Chapter headings are ``## Chapter N: Title``, ``## N. Title`` or ``## Title`` (numbered after
  the previous chapter). Numbers must increase.
* Scene markers ``<!-- scene b-c-s -->`` must name the book and chapter they sit in, and scene
  numbers must increase within a chapter, so that text order and story order agree.
* A chapter without scene markers becomes one scene ``b-c-1``. Text between a chapter heading and
  its first marker (an epigraph, say) belongs to the first scene. Other full-line HTML comments
  are authors' notes and are dropped.

Every structural mistake raises ``InputError`` with the file, ``line N`` and what was expected.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from incanon.canon.position import Position
from incanon.canon.world import Chunk
from incanon.errors import ConfigError, InputError
from incanon.sentences import split_sentences

DEFAULT_CHUNK_WORDS = 350

_BOOK_RE = re.compile(r"^#[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_CHAPTER_RE = re.compile(r"^##[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_NUMBERED_RE = re.compile(r"^(?:(?:book|chapter)\s+)?(\d+)\s*(?:[:.\-–—]\s*(.*))?$", re.IGNORECASE)
_SCENE_RE = re.compile(r"^\s*<!--\s*scene\b(.*?)-->\s*$", re.IGNORECASE)
_COMMENT_RE = re.compile(r"^\s*<!--.*-->\s*$")
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")
# A sentence runs to an end mark (and any closing quotes or brackets) followed by a space.


@dataclass(frozen=True)
class BookScene:
    """One scene of a book: its id is also its story position (``book-chapter-scene``)."""

    id: str
    book: int
    chapter: int
    number: int
    text: str
    line: int
    """1-based line of the scene marker (or of the chapter heading for an unmarked chapter)."""

    @property
    def position(self) -> str:
        return self.id

    @property
    def words(self) -> int:
        return word_count(self.text)


@dataclass
class BookChapter:
    """A chapter and its scenes, in text order."""

    number: int
    title: str
    line: int
    scenes: list[BookScene] = field(default_factory=list)


@dataclass
class ParsedBook:
    """The structure of one markdown book."""

    number: int
    title: str
    chapters: list[BookChapter] = field(default_factory=list)
    source: str = ""
    preface: str = ""
    """Text between the book heading and the first chapter (not part of any scene)."""

    def scenes(self) -> list[BookScene]:
        """Every scene, in story order."""
        return [scene for chapter in self.chapters for scene in chapter.scenes]

    def word_count(self) -> int:
        """Words of scene text (headings and markers excluded)."""
        return sum(scene.words for scene in self.scenes())


def word_count(text: str) -> int:
    """Whitespace-separated words: the unit of every budget here."""
    return len(text.split())


class _Reader:
    """One pass over the lines; keeps the open chapter and scene and the text gathered so far."""

    def __init__(self, text: str, book: int | None, source: str):
        self.lines = text.splitlines()
        self.source = source
        self.book_arg = book
        self.book_number: int | None = book
        self.book_title = ""
        self.book_line: int | None = None
        self.chapters: list[BookChapter] = []
        self.preface: list[str] = []
        self.buffer: list[str] = []  # text of the open scene (or of the chapter before a marker)
        self.open_scene: tuple[str, int, int] | None = None  # (id, number, line)
        self.scene_ids: dict[str, int] = {}

    def fail(self, lineno: int, message: str) -> InputError:
        return InputError(message, source=self.source or "<book>", where=f"line {lineno}")

    @property
    def number(self) -> int:
        return 1 if self.book_number is None else self.book_number

    def run(self) -> ParsedBook:
        for lineno, line in enumerate(self.lines, start=1):
            if (m := _SCENE_RE.match(line)) is not None:
                self.scene_marker(lineno, m.group(1).strip())
            elif _COMMENT_RE.match(line):
                continue
            elif (m := _CHAPTER_RE.match(line)) is not None:
                self.chapter_heading(lineno, m.group(1))
            elif (m := _BOOK_RE.match(line)) is not None:
                self.book_heading(lineno, m.group(1))
            elif self.chapters:
                self.buffer.append(line)
            else:
                self.preface.append(line)
        self.close_chapter()
        return ParsedBook(
            number=self.number,
            title=self.book_title,
            chapters=self.chapters,
            source=self.source,
            preface=_clean("\n".join(self.preface)),
        )

    def book_heading(self, lineno: int, content: str) -> None:
        if self.book_line is not None:
            raise self.fail(
                lineno,
                f"a second book heading (the first is on line {self.book_line}): "
                "expected one '# Book N: Title' per file",
            )
        if self.chapters:
            raise self.fail(lineno, "the book heading must come before the first chapter heading")
        self.book_line = lineno
        m = _NUMBERED_RE.match(content)
        if m is None:
            self.book_title = content
            return
        number, title = int(m.group(1)), (m.group(2) or "").strip()
        if self.book_arg is not None and number != self.book_arg:
            raise self.fail(lineno, f"heading says book {number} but book={self.book_arg} was given")
        self.book_number, self.book_title = number, title

    def chapter_heading(self, lineno: int, content: str) -> None:
        self.close_chapter()
        previous = self.chapters[-1].number if self.chapters else 0
        m = _NUMBERED_RE.match(content)
        number, title = (int(m.group(1)), (m.group(2) or "").strip()) if m else (previous + 1, content)
        if self.chapters and number <= previous:
            raise self.fail(
                lineno,
                f"chapter {number} follows chapter {previous}: expected chapter numbers to "
                "increase (one heading per chapter)",
            )
        self.chapters.append(BookChapter(number=number, title=title, line=lineno))

    def scene_marker(self, lineno: int, raw: str) -> None:
        if not self.chapters:
            raise self.fail(
                lineno,
                f"scene marker {raw!r} before any chapter heading: expected '## Chapter N: Title' first",
            )
        chapter = self.chapters[-1]
        prefix = f"{self.number}-{chapter.number}-"
        parts = [p.strip() for p in raw.split("-")]
        if len(parts) != 3 or not all(p.isascii() and p.isdigit() for p in parts):
            raise self.fail(
                lineno,
                f"scene id {raw!r} is not three numbers book-chapter-scene: expected "
                f"'<!-- scene {prefix}N -->'",
            )
        book, chap, number = (int(p) for p in parts)
        try:
            scene_id = str(Position.chapter_pos(book, chap, number))
        except InputError as exc:
            raise self.fail(lineno, str(exc)) from None
        if (book, chap) != (self.number, chapter.number):
            raise self.fail(
                lineno,
                f"scene id {scene_id!r} does not match its place (book {self.number}, chapter "
                f"{chapter.number}): expected an id starting with {prefix!r}",
            )
        if scene_id in self.scene_ids:
            raise self.fail(lineno, f"duplicate scene id {scene_id!r} (first on line {self.scene_ids[scene_id]})")
        if chapter.scenes or self.open_scene:
            last = self.open_scene[1] if self.open_scene else chapter.scenes[-1].number
            if number <= last:
                raise self.fail(
                    lineno,
                    f"scene {scene_id!r} follows scene {prefix}{last}: expected scene numbers to "
                    "increase within a chapter",
                )
        self.scene_ids[scene_id] = lineno
        if self.open_scene is not None:
            self.close_scene()
        self.open_scene = (scene_id, number, lineno)
        # Text before a chapter's first marker stays in the buffer and opens the first scene.

    def close_scene(self) -> None:
        assert self.open_scene is not None
        chapter = self.chapters[-1]
        scene_id, number, line = self.open_scene
        chapter.scenes.append(
            BookScene(
                id=scene_id,
                book=self.number,
                chapter=chapter.number,
                number=number,
                text=_clean("\n".join(self.buffer)),
                line=line,
            )
        )
        self.buffer, self.open_scene = [], None

    def close_chapter(self) -> None:
        if not self.chapters:
            return
        if self.open_scene is not None:
            self.close_scene()
            return
        chapter = self.chapters[-1]
        text = _clean("\n".join(self.buffer))
        self.buffer = []
        if chapter.scenes or not text:
            return
        scene_id = f"{self.number}-{chapter.number}-1"
        self.scene_ids[scene_id] = chapter.line
        chapter.scenes.append(
            BookScene(id=scene_id, book=self.number, chapter=chapter.number, number=1, text=text, line=chapter.line)
        )


def _clean(text: str) -> str:
    return text.strip("\n").rstrip()


def parse_markdown_book(text: str, *, book: int | None = None, source: str = "") -> ParsedBook:
    """Parse one markdown book (see the module docstring for the form).

    ``book`` numbers the book when the file has no numbered ``# Book N`` heading; ``source``
    names the file in error messages and in the chunks made from it.
    """
    return _Reader(text, book, source).run()


def split_text(text: str, max_words: int = DEFAULT_CHUNK_WORDS) -> list[str]:
    """Cut ``text`` into pieces of at most ``max_words`` words.

    Paragraphs are packed whole while they fit; a paragraph longer than the budget is cut at
    sentence ends, and a sentence longer than the budget at word boundaries.
    """
    if max_words < 1:
        raise ConfigError(f"chunk budget must be at least 1 word, got {max_words}")
    pieces: list[str] = []
    current: list[str] = []
    size = 0
    for paragraph in _PARAGRAPH_BREAK.split(text.strip()):
        paragraph = paragraph.strip()
        words = word_count(paragraph)
        if not words:
            continue
        if words > max_words:
            if current:
                pieces.append("\n\n".join(current))
                current, size = [], 0
            pieces.extend(_split_paragraph(paragraph, max_words))
            continue
        if current and size + words > max_words:
            pieces.append("\n\n".join(current))
            current, size = [], 0
        current.append(paragraph)
        size += words
    if current:
        pieces.append("\n\n".join(current))
    return pieces


def _split_paragraph(paragraph: str, max_words: int) -> list[str]:
    sentences = split_sentences(paragraph)
    pieces: list[str] = []
    current: list[str] = []
    size = 0
    for sentence in sentences:
        words = sentence.split()
        if len(words) > max_words:
            if current:
                pieces.append(" ".join(current))
                current, size = [], 0
            pieces.extend(" ".join(words[i : i + max_words]) for i in range(0, len(words), max_words))
            continue
        if current and size + len(words) > max_words:
            pieces.append(" ".join(current))
            current, size = [], 0
        current.append(sentence)
        size += len(words)
    if current:
        pieces.append(" ".join(current))
    return pieces


def chunk_scenes(
    scenes: list[BookScene], *, max_words: int = DEFAULT_CHUNK_WORDS, source: str = ""
) -> list[Chunk]:
    """One ``Chunk`` per scene piece: ids ``<scene>#0``, ``<scene>#1``..., stamped with the scene."""
    chunks: list[Chunk] = []
    for scene in scenes:
        for k, piece in enumerate(split_text(scene.text, max_words)):
            chunks.append(
                Chunk(id=f"{scene.id}#{k}", position=scene.position, text=piece, source=source, scene=scene.id)
            )
    return chunks


def chunk_book(book: ParsedBook, *, max_words: int = DEFAULT_CHUNK_WORDS, source: str | None = None) -> list[Chunk]:
    """Chunks of every scene of ``book`` (``source`` defaults to the book's own)."""
    return chunk_scenes(book.scenes(), max_words=max_words, source=book.source if source is None else source)
