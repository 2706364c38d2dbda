"""``canon build --dry-run``: calls, tokens and cost per stage before any call.

Exact where the book decides it: one split call per chapter without authored scenes, the graph's
extraction calls per chunk (:mod:`incanon.graph.estimate`). Estimated where the helper's answers
decide it, and each row says what it assumes: scenes per chapter (one per ``WORDS_PER_SCENE``
words, at most ``--scenes-per-chapter``), the number of names, time points per character
(``--time-points`` plus the ends of books). A chapter longer than the splitter reads at once is
one split call per piece (:func:`incanon.canonbuild.scenes.split_pieces`).

Each template's fixed text is counted once and each chapter's text once (the counter is the
embedded model's tokenizer: counting the same text again for every row made a 20,000-chapter dry
run take ten minutes before it printed anything).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from incanon.sizing import template_tokens, text_tokens
from incanon.canonbuild.pipeline import BuildOptions
from incanon.canonbuild.scenes import MAX_SPLIT_CHARS, split_pieces
from incanon.graph.chunking import SourceChunk, text_chunks
from incanon.graph.config import GraphConfig
from incanon.graph.estimate import build_estimate
from incanon.ingest.reader import BookText
from incanon.ingest.scripts import text_size  # Chinese by character: a 900-word scene is ~1,800 of them
from incanon.canonbuild.progress import Progress, Say
from incanon.runs.estimate import CallPattern, EstimateLine, RunEstimate, estimate_run
from incanon.templates import PromptLibrary

WORDS_PER_SCENE = 900
SCENE_REPLY_TOKENS = 70
NAME_TOKENS = 8
NAMES_PER_CHAPTER = 3
SHEET_REPLY_TOKENS = 320


@dataclass(frozen=True)
class _CountedChunk(SourceChunk):
    """A chapter that fits one graph chunk, with its token count already known."""

    counted: int = 0

    @property
    def tokens(self) -> int:
        return self.counted


def _graph_chunks(book: BookText, config: GraphConfig, text_sizes: dict[tuple[int, int], int],
                 progress: Progress | None = None) -> list[SourceChunk]:
    """The graph's chunks of every chapter; a chapter that fits one chunk is that chunk, without
    cutting it into token windows (which costs a detokenized span per token)."""
    chunks: list[SourceChunk] = []
    for k, c in enumerate(book.chapters):
        if progress is not None:
            progress.update(k, len(book.chapters), "chapters cut into graph chunks")
        source, size = f"{c.book}-{c.number}", text_sizes[(c.book, c.number)]
        if size < config.chunk_tokens and c.text.strip():
            chunks.append(_CountedChunk(id=source, text=c.text.strip(), position=None, source=source, counted=size))
        else:
            chunks += text_chunks(c.text, source, config.chunk_tokens, config.overlap_tokens)
    return chunks


def _row(label: str, model: str, sizes: list[tuple[int, int]], note: str) -> RunEstimate:
    items = [{"id": str(k), "input": {"p": p, "c": c}} for k, (p, c) in enumerate(sizes)]
    line = EstimateLine(label, model, lambda item: CallPattern(calls=1, min_calls=1, max_calls=2,
                                                               prompt_tokens=int(item.input["p"]),
                                                               completion_tokens=int(item.input["c"])), note=note)
    return estimate_run(items, [line])


def _split_row(book: BookText, model: str, split_template: int, text_sizes: dict[tuple[int, int], int],
               scenes_per: dict[tuple[int, int], int], max_chars: int) -> RunEstimate:
    """One split call per chapter without authored scenes, per piece of a long chapter."""
    sizes: list[tuple[int, int]] = []
    long_chapters = 0
    fixed = split_template + text_tokens(book.title)
    for c in book.chapters:
        if c.scenes:
            continue
        key = (c.book, c.number)
        pieces = split_pieces(c.text, max_chars)
        long_chapters += len(pieces) > 1
        for start, end in pieces:  # the chapter's tokens, shared by its pieces by their length
            share = text_sizes[key] * (end - start) // max(1, len(c.text))
            sizes.append((fixed + text_tokens(c.title) + share,
                          max(1, scenes_per[key] // len(pieces)) * SCENE_REPLY_TOKENS))
    note = f"one call per chapter; a reply of ~{SCENE_REPLY_TOKENS} tokens per scene"
    if long_chapters:
        note += (f"; {long_chapters} chapter(s) over {max_chars:,} characters are split in pieces, one call each "
                 f"({len(sizes)} calls)")
    return _row("scenes: split (per chapter)", model, sizes, note)


#: What a scene's perception answer is assumed to cost (a few passages quoted with who and how).
PERCEPTION_REPLY_TOKENS = 150


def estimate_build(book: BookText, options: BuildOptions, model: str, prompts: PromptLibrary, *,
                   graph: GraphConfig | None = None, max_chapter_chars: int = MAX_SPLIT_CHARS,
                   say: Say | None = None) -> RunEstimate:
    """The predicted helper use of building ``book`` (calls no model). ``say`` gets a progress
    line every few seconds while the counting runs (a long book takes a while to tokenize)."""
    progress = Progress(say, "dry run") if say is not None else None
    scenes_per = {(c.book, c.number): len(c.scenes) or min(options.scenes_per_chapter,
                                                           max(1, math.ceil(text_size(c.text) / WORDS_PER_SCENE)))
                  for c in book.chapters}
    text_sizes: dict[tuple[int, int], int] = {}
    for k, c in enumerate(book.chapters):
        if progress is not None:
            progress.update(k, len(book.chapters), "chapters' tokens counted")
        text_sizes[(c.book, c.number)] = text_tokens(c.text)
    rows: list[RunEstimate] = [_split_row(book, model, template_tokens("canon_scene_split", prompts), text_sizes,
                                          scenes_per, max_chapter_chars)]
    participants_fixed = template_tokens("timechara_scene_participants", prompts) + text_tokens(book.title)
    participant_sizes = []
    for c in book.chapters:
        n = scenes_per[(c.book, c.number)]
        participant_sizes += [(participants_fixed + text_sizes[(c.book, c.number)] // n, 40)] * n
    rows.append(_row("scenes: participants (per scene)", model, participant_sizes,
                     f"assumes one scene per {WORDS_PER_SCENE} words, at most {options.scenes_per_chapter} per chapter"))
    names = NAMES_PER_CHAPTER * len(book.chapters)
    rows.append(_row("characters: names grouped", model,
                     [(template_tokens("canon_characters", prompts) + names * NAME_TOKENS, names * NAME_TOKENS)],
                     f"assumes ~{names} distinct names"))
    if options.perception:
        perception_fixed = template_tokens("canon_perception", prompts) + text_tokens(book.title)
        perception_sizes = []
        for c in book.chapters:
            n = scenes_per[(c.book, c.number)]
            perception_sizes += [(perception_fixed + text_sizes[(c.book, c.number)] // n, PERCEPTION_REPLY_TOKENS)] * n
        rows.append(_row("perception (per scene)", model, perception_sizes,
                         "who perceives what: the passages the default cut cannot see"))
    main = len(options.characters) or options.main
    scenes = sum(scenes_per.values())
    own = max(1, scenes // 2)
    rows.append(_row("time points (per main character)", model,
                     [(template_tokens("canon_time_points", prompts) + own * 30, 30 * options.time_points)] * main,
                     f"assumes {main} main characters each in half the scenes"))
    books = len({c.book for c in book.chapters})
    sheets = main * (options.time_points + books)
    rows.append(_row("profiles (per time point)", model,
                     [(template_tokens("canon_profile", prompts) + options.profile_tokens, SHEET_REPLY_TOKENS)] * sheets,
                     f"assumes {options.time_points + books} time points per character, scene text up to "
                     f"--profile-tokens {options.profile_tokens}"))
    if options.graph:
        config = graph or GraphConfig()
        chunks = _graph_chunks(book, config, text_sizes, progress)
        if progress is not None:
            progress.update(0, None, "graph chunks priced")
        rows.append(build_estimate(chunks, config, model, prompts))
    total_rows = [r for est in rows for r in est.rows]
    return RunEstimate(items=len(book.chapters), samples=len(book.chapters), rows=total_rows,
                       prices=rows[0].prices)


__all__ = ["estimate_build"]
