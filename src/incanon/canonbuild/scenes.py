"""Scenes of a built book: the project's one scene splitter and participant step, covering every word.

Chapters whose author marked scenes (markdown ``<!-- scene -->``) keep them. Every other chapter
goes through the scene splitter (:func:`incanon.canonbuild.scene_extract.split_scenes` with the
``canon_scene_split`` prompt: each scene's opening and closing words, summary, location and
speakers), and the scenes found are widened to cover the chapter: text between two scenes joins
the scene after it, text after the last joins the last. A chapter the helper could not split is
one scene, recorded as a failed step. A chapter longer than the splitter reads at once
(:data:`MAX_SPLIT_CHARS`) is split in pieces cut at paragraph breaks, one call each, and the
scenes of all its pieces are the chapter's: no part of a long chapter is left to a last scene
unread. Then the participant step lists who is present in each
scene; a scene whose list could not be read keeps none, and so is witnessed by nobody (its text
is hidden from every character's witnessed view, never shown to the wrong one).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from incanon.canonbuild.scene_extract import (
    ExtractedScene,
    ExtractionResult,
    SceneProblem,
    find_participants,
    split_scenes,
)
from incanon.ingest.markdown_book import BookChapter, BookScene
from incanon.ingest.reader import BookText, ReadChapter
from incanon.models.types import ChatModel, GenerationParams
from incanon.templates import PromptLibrary


MAX_SPLIT_CHARS = 60_000
"""Characters of chapter text one scene-split call reads; a longer chapter is split in pieces."""


def split_pieces(text: str, max_chars: int = MAX_SPLIT_CHARS) -> list[tuple[int, int]]:
    """``text`` as (start, end) pieces of at most ``max_chars``, of about equal length, cut at a
    paragraph break where there is one (else at a space); one piece when it is short enough."""
    if len(text) <= max_chars:
        return [(0, len(text))]
    count = math.ceil(len(text) / max_chars)
    pieces: list[tuple[int, int]] = []
    start = 0
    while len(text) - start > max_chars:
        target = start + math.ceil((len(text) - start) / count)
        limit = start + max_chars
        cut = text.rfind("\n\n", start + 1, min(limit, target + max_chars // 4))
        if cut <= start:
            cut = text.rfind(" ", start + 1, limit)
        cut = cut if cut > start else limit
        pieces.append((start, cut))
        start, count = cut, max(1, count - 1)
    pieces.append((start, len(text)))
    return pieces


def split_params(per_chapter: int) -> GenerationParams:
    """A split names each scene's opening and closing words, so its reply is short: room for
    ``per_chapter`` scenes of about 90 tokens each, so a small model that starts
    repeating itself stops there instead of running on for minutes."""
    return GenerationParams(max_tokens=min(1200, 150 + 90 * per_chapter))


@dataclass
class SceneStep:
    """Every scene of the book in story order, and what went wrong."""

    scenes: list[ExtractedScene] = field(default_factory=list)
    problems: list[SceneProblem] = field(default_factory=list)
    whole_chapters: list[str] = field(default_factory=list)
    """Chapters kept as one scene because the helper's split could not be used."""
    authored: int = 0
    """Chapters whose scenes the author marked."""


def _piece(chapter: ReadChapter, span: tuple[int, int], k: int = 1, pieces: int = 1) -> BookChapter:
    """Piece ``k`` of ``pieces`` of the chapter (``span`` of its text), as the splitter reads it."""
    title = chapter.title if pieces == 1 else f"{chapter.title} (piece {k} of {pieces})"
    scene = BookScene(f"{chapter.book}-{chapter.number}-1", chapter.book, chapter.number, 1,
                      chapter.text[span[0]:span[1]], chapter.line)
    return BookChapter(number=chapter.number, title=title, line=chapter.line, scenes=[scene])


def cover(chapter: ReadChapter, placed: list[ExtractedScene]) -> list[ExtractedScene]:
    """``placed`` (in text order) widened so that together they hold the whole chapter."""
    text = chapter.text
    if not placed:
        return [ExtractedScene(chapter.book, chapter.number, 0, len(text), text, "", [], number=1)]
    out: list[ExtractedScene] = []
    for k, s in enumerate(placed):
        start = 0 if k == 0 else out[-1].end
        end = len(text) if k == len(placed) - 1 else s.end
        out.append(ExtractedScene(chapter.book, chapter.number, start, end, text[start:end].strip(), s.summary,
                                  s.speakers, number=k + 1, location=s.location))
    return out


def _authored(chapter: ReadChapter) -> list[ExtractedScene]:
    return [ExtractedScene(chapter.book, chapter.number, 0, len(t), t, "", [], number=k)
            for k, t in enumerate(chapter.scenes, 1)]


async def find_scenes(book: BookText, model: ChatModel, prompts: PromptLibrary, *, per_chapter: int = 8,
                      known_characters: list[str] | None = None, concurrency: int = 4,
                      json_mode: bool = True, max_chapter_chars: int = MAX_SPLIT_CHARS,
                      on_phase: Callable[[str, int], None] | None = None) -> SceneStep:
    """Split, cover and people every chapter of ``book`` (see the module docstring).
    ``on_phase(what, calls)``: told before the splits and before the participant lists, with
    the number of helper calls each takes (without repair turns), for progress lines."""
    step = SceneStep()
    result = ExtractionResult()
    to_split = [c for c in book.chapters if not c.scenes]
    if on_phase is not None:
        on_phase("chapter split calls", sum(len(split_pieces(c.text, max_chapter_chars)) for c in to_split))
    by_chapter: dict[tuple[int, int], list[ExtractedScene]] = {}
    for b in sorted({c.book for c in to_split}):
        calls: list[tuple[ReadChapter, int, BookChapter]] = []
        for c in (c for c in to_split if c.book == b):
            spans = split_pieces(c.text, max_chapter_chars)
            calls += [(c, span[0], _piece(c, span, k, len(spans))) for k, span in enumerate(spans, 1)]
        found = await split_scenes([piece for _, _, piece in calls], b, book.title, model, prompts,
                                   result=result, per_chapter=per_chapter, known_characters=known_characters,
                                   max_chapter_chars=max_chapter_chars, concurrency=concurrency,
                                   json_mode=json_mode, prompt="canon_scene_split",
                                   params=split_params(per_chapter))
        for (chapter, offset, _), placed in zip(calls, found):
            # A piece's scenes are placed in the piece: move them to their place in the chapter.
            by_chapter.setdefault((chapter.book, chapter.number), []).extend(
                replace(s, start=s.start + offset, end=s.end + offset) for s in placed)
    for chapter in book.chapters:
        if chapter.scenes:
            step.authored += 1
            step.scenes += _authored(chapter)
            continue
        placed = sorted(by_chapter.get((chapter.book, chapter.number), []), key=lambda s: s.start)
        if not placed:
            step.whole_chapters.append(f"{chapter.book}-{chapter.number}")
        step.scenes += cover(chapter, placed)
    if on_phase is not None:
        on_phase("participant calls", len(step.scenes))
    await find_participants(step.scenes, book.title, model, prompts, result=result,
                            known_characters=known_characters, concurrency=concurrency, json_mode=json_mode)
    step.problems = result.problems
    return step


__all__ = ["MAX_SPLIT_CHARS", "SceneStep", "cover", "find_scenes", "split_params", "split_pieces"]
