"""Scenes and participants of a raw book, found by the helper LLM (the paper's Appendix D.1).

A markdown book without scene markers parses into one scene per chapter. The paper picks
dialogue scenes out of running text (Table 13: N scenes per chapter, each with a one-sentence
summary, its raw text and its speakers) and then lists each scene's participants (Table 14).
Here:

1. ``timechara_scene_extract``: per chapter, up to ``per_chapter`` scenes (summary, verbatim
   text, speakers).
2. Each scene's text is located in the chapter (by its opening and closing words), so the
   stored text is the book's own and the scenes are numbered in text order: ``book-chapter-scene``
   positions. A passage the helper did not copy from the chapter cannot be placed and is skipped
   (recorded), never stored with invented text. Anchors are read in units: a word of a spaced
   script, one character of a script written without spaces (Chinese, Japanese, Thai), so a
   Chinese opening of 12 characters anchors as six English words do; case, width (full-width
   letters), punctuation and quote marks (「」“”) and whitespace do not count.
3. ``timechara_scene_participants``: who is physically present in each scene.

TimeChara's book reader (:mod:`incanon.bench.timechara.book`) and `canon build` both use it.
"""

from __future__ import annotations

import asyncio
import re
import unicodedata
from dataclasses import dataclass, field

from pydantic import BaseModel, Field

from incanon.errors import IncanonError
from incanon.llmout.structured import ask_structured
from incanon.ingest.markdown_book import BookChapter
from incanon.ingest.scripts import CJK_LETTER as UNSPACED
from incanon.ingest.scripts import unspaced as is_unspaced
from incanon.models.forget import forget_answers
from incanon.models.types import ChatModel, Completion, GenerationParams
from incanon.templates import PromptLibrary

_WORD = re.compile(r"\S+")
_STRIP = re.compile(r"[^\w']+")
_UNIT = re.compile(rf"[{UNSPACED}]|[^\W{UNSPACED}]+")
_UNSPACED_RE = re.compile(f"[{UNSPACED}]")
ANCHOR_WORDS = 6
"""Words of a passage's opening (and closing) that must be found in the chapter, in order."""
ANCHOR_CHARS = 12
"""Characters of a script without spaces that anchor like ``ANCHOR_WORDS`` words (punctuation
not counted; the prompt asks for 15 to 20, so a helper that drops or adds a few still anchors)."""
EXTRACT_PARAMS = GenerationParams(max_tokens=2048)
"""Scene extraction copies passages out, so it needs a long reply (2048 fits small local models' 4k windows)."""


class FoundScene(BaseModel):
    """One scene as the helper gives it (Table 13's three fields)."""

    summary: str = ""
    text: str = ""
    speakers: list[str] = Field(default_factory=list)
    start: str = ""
    """The passage's opening words (a splitter may give these and ``end`` instead of ``text``)."""
    end: str = ""
    """The passage's closing words."""
    location: str = ""


class SceneList(BaseModel):
    """The helper's reply to the scene extraction prompt."""

    scenes: list[FoundScene]


class ParticipantList(BaseModel):
    """The helper's reply to the participant prompt."""

    participants: list[str]


@dataclass
class ExtractedScene:
    """A scene placed in its chapter: the book's text from ``start`` to ``end``."""

    book: int
    chapter: int
    start: int
    end: int
    text: str
    summary: str
    speakers: list[str]
    participants: list[str] | None = None
    """None while unknown or when the participant step failed."""
    number: int = 0
    location: str = ""

    @property
    def id(self) -> str:
        """The scene's id and story position, ``book-chapter-scene``."""
        return f"{self.book}-{self.chapter}-{self.number}"


@dataclass
class SceneProblem:
    """A chapter or scene the helper's output could not be used for."""

    step: str
    where: str
    error: str
    raw: str = ""
    """The helper's unreadable output, when that was the problem."""


@dataclass
class ExtractionResult:
    """Every placed scene of a book, and what went wrong."""

    scenes: list[ExtractedScene] = field(default_factory=list)
    problems: list[SceneProblem] = field(default_factory=list)


_Unit = tuple[str, int, int, int]
"""(normalized unit, start, end, weight): a word weighs ``ANCHOR_CHARS`` and one character of
a script without spaces ``ANCHOR_WORDS``, so an anchor of ANCHOR_WORDS × ANCHOR_CHARS weighs
either six words or twelve characters (or a mix, as in Japanese with Latin names)."""
_FULL = ANCHOR_WORDS * ANCHOR_CHARS


def _norm(text: str) -> str:
    return unicodedata.normalize("NFKC", text).replace("’", "'").casefold()


def _units(text: str) -> list[_Unit]:
    """Every anchor unit of ``text`` with its character span; punctuation and case do not count."""
    out: list[_Unit] = []
    for m in _WORD.finditer(text):
        word = m.group()
        if not _UNSPACED_RE.search(word):
            norm = _STRIP.sub("", _norm(word))
            if norm:
                out.append((norm, m.start(), m.end(), ANCHOR_CHARS))
            continue
        # A run of a script without spaces: each of its characters is a unit, and a Latin name or
        # a number inside it one unit; the punctuation between them (。「」) none.
        for u in _UNIT.finditer(word):
            norm = _STRIP.sub("", _norm(u.group()))
            if norm:
                weight = ANCHOR_WORDS if _UNSPACED_RE.match(u.group()) else ANCHOR_CHARS
                out.append((norm, m.start() + u.start(), m.start() + u.end(), weight))
    return out


def _words(text: str) -> list[tuple[str, int, int]]:
    """(normalized unit, start, end) of every anchor unit (a word, or one character of a script
    without spaces); punctuation and case do not count."""
    return [(w, a, b) for w, a, b, _ in _units(text)]


def _anchor(units: list[_Unit], *, last: bool = False) -> list[str]:
    """The opening (or closing) units of a quote, up to one anchor's weight."""
    seq = reversed(units) if last else iter(units)
    taken: list[str] = []
    weight = 0
    for norm, _, _, w in seq:
        if weight >= _FULL:
            break
        taken.append(norm)
        weight += w
    return taken[::-1] if last else taken


def _find(hay: list[str], needle: list[str], start: int = 0) -> int:
    if not needle:
        return -1
    head, size, end = needle[0], len(needle), len(hay) - len(needle)
    i = start
    while i <= end:
        try:
            i = hay.index(head, i, end + 1)
        except ValueError:
            return -1
        if hay[i:i + size] == needle:
            return i
        i += 1
    return -1


def locate_bounds(chapter_text: str, start: str, end: str) -> tuple[int, int] | None:
    """Span from the words ``start`` opens with to the words ``end`` closes with, in order."""
    words = _words(chapter_text)
    plain = [w for w, _, _ in words]
    first_words = _anchor(_units(start))
    last_words = _anchor(_units(end), last=True)
    if not first_words or not last_words:
        return None
    first = _find(plain, first_words)
    if first < 0:
        return None
    last = _find(plain, last_words, first)
    if last < 0:
        return None
    return _widen(chapter_text, words[first][1], words[last + len(last_words) - 1][2])


def _widen(text: str, start: int, end: int) -> tuple[int, int]:
    """The span with the opening quote before it and the closing punctuation after it (「…。」):
    a word of a spaced script carries its own, a character of CJK text does not."""
    while start > 0 and unicodedata.category(text[start - 1]) in ("Ps", "Pi"):
        start -= 1
    while end < len(text) and unicodedata.category(text[end]) in ("Po", "Pe", "Pf"):
        end += 1
    return start, end


def locate(chapter_text: str, passage: str) -> tuple[int, int] | None:
    """Character span of ``passage`` in ``chapter_text``: its first and last ``ANCHOR_WORDS``
    words (``ANCHOR_CHARS`` characters of a script without spaces) found in order (so
    whitespace, quotes and a typo in the middle do not matter)."""
    return locate_bounds(chapter_text, passage, passage)


def _place(chapter: BookChapter, book: int, found: list[FoundScene], problems: list[SceneProblem]) -> list[ExtractedScene]:
    text = "\n\n".join(s.text for s in chapter.scenes)
    placed: list[ExtractedScene] = []
    for k, scene in enumerate(found, 1):
        span = (locate(text, scene.text) if scene.text.strip() else
                locate_bounds(text, scene.start, scene.end or scene.start))
        if span is None:
            problems.append(SceneProblem("scene_extract", f"{book}-{chapter.number} scene {k}",
                                         "the passage is not in the chapter's text (not copied word for word)"))
            continue
        if any(p.start < span[1] and span[0] < p.end for p in placed):
            problems.append(SceneProblem("scene_extract", f"{book}-{chapter.number} scene {k}",
                                         "overlaps a scene already taken from this chapter"))
            continue
        placed.append(ExtractedScene(book, chapter.number, span[0], span[1], text[span[0]:span[1]],
                                     scene.summary.strip(), [s.strip() for s in scene.speakers if s.strip()],
                                     location=scene.location.strip()))
    placed.sort(key=lambda s: s.start)  # text order is story order
    for n, scene in enumerate(placed, 1):
        scene.number = n
    return placed


async def split_scenes(
    chapters: list[BookChapter],
    book: int,
    work_title: str,
    model: ChatModel,
    prompts: PromptLibrary,
    *,
    result: ExtractionResult,
    per_chapter: int = 5,
    min_lines: int = 5,
    known_characters: list[str] | None = None,
    max_chapter_chars: int = 40000,
    concurrency: int = 4,
    json_mode: bool = True,
    prompt: str = "timechara_scene_extract",
    params: GenerationParams = EXTRACT_PARAMS,
) -> list[list[ExtractedScene]]:
    """The scene splitter: per chapter, the scenes the helper finds with ``prompt``, placed in the
    chapter's own text (failures go to ``result.problems``; a chapter that failed gets [])."""
    gate = asyncio.Semaphore(max(1, concurrency))
    names = known_characters or []

    async def one_chapter(chapter: BookChapter) -> list[ExtractedScene]:
        text = "\n\n".join(s.text for s in chapter.scenes)
        answers: list[Completion] = []
        async with gate:
            try:
                # ``unspaced``: the template asks for openings in characters, not words.
                reply = await ask_structured(
                    model, prompts, prompt, SceneList, params=params, answers=answers,
                    json_mode=json_mode, work_title=work_title, book=book, chapter=chapter.number,
                    chapter_title=chapter.title, count=per_chapter, min_lines=min_lines, known_characters=names,
                    chapter_text=text[:max_chapter_chars], unspaced=is_unspaced(text))
            except IncanonError as exc:
                result.problems.append(SceneProblem("scene_extract", f"{book}-{chapter.number}", str(exc),
                                                     getattr(exc, "raw", "")))
                return []
        placed = _place(chapter, book, reply.scenes[:per_chapter], result.problems)
        if not placed:
            # Readable JSON, yet no scene of it is in the chapter: as unusable as bad JSON, so
            # the cache forgets it and a rerun asks again.
            forget_answers(model, *answers)
        return placed

    return list(await asyncio.gather(*(one_chapter(c) for c in chapters)))


async def find_participants(
    scenes: list[ExtractedScene],
    work_title: str,
    model: ChatModel,
    prompts: PromptLibrary,
    *,
    result: ExtractionResult,
    known_characters: list[str] | None = None,
    concurrency: int = 4,
    json_mode: bool = True,
) -> None:
    """The participant step: who is physically present in each scene (``scene.participants``;
    left None, with a problem recorded, where the helper's answer could not be read)."""
    gate = asyncio.Semaphore(max(1, concurrency))
    names = known_characters or []

    async def participants(scene: ExtractedScene) -> None:
        async with gate:
            try:
                reply = await ask_structured(
                    model, prompts, "timechara_scene_participants", ParticipantList, json_mode=json_mode,
                    work_title=work_title, position=scene.id, speakers=scene.speakers,
                    known_characters=names, scene_text=scene.text)
            except IncanonError as exc:
                result.problems.append(SceneProblem("scene_participants", scene.id, str(exc), getattr(exc, "raw", "")))
                return
        scene.participants = [p.strip() for p in reply.participants if p and p.strip()]

    await asyncio.gather(*(participants(s) for s in scenes))


async def extract_scenes(
    chapters: list[BookChapter],
    book: int,
    work_title: str,
    model: ChatModel,
    prompts: PromptLibrary,
    *,
    per_chapter: int = 5,
    min_lines: int = 5,
    known_characters: list[str] | None = None,
    max_chapter_chars: int = 40000,
    concurrency: int = 4,
    json_mode: bool = True,
) -> ExtractionResult:
    """Scenes of every chapter, then their participants; failures are recorded, not raised."""
    result = ExtractionResult()
    for placed in await split_scenes(chapters, book, work_title, model, prompts, result=result,
                                     per_chapter=per_chapter, min_lines=min_lines, known_characters=known_characters,
                                     max_chapter_chars=max_chapter_chars, concurrency=concurrency,
                                     json_mode=json_mode):
        result.scenes.extend(placed)
    await find_participants(result.scenes, work_title, model, prompts, result=result,
                            known_characters=known_characters, concurrency=concurrency, json_mode=json_mode)
    return result


__all__ = ["ExtractedScene", "ExtractionResult", "FoundScene", "ParticipantList", "SceneList", "SceneProblem",
           "extract_scenes", "find_participants", "locate", "locate_bounds", "split_scenes"]
