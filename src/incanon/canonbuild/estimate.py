"""``canon build --dry-run``: calls, tokens and cost per stage before any call.

Exact where the book decides it: one split call per chapter without authored scenes, the graph's
extraction calls per chunk (:mod:`incanon.graph.estimate`). Estimated where the helper's answers
decide it, and each row says what it assumes: scenes per chapter (one per ``WORDS_PER_SCENE``
words, at most ``--scenes-per-chapter``), the number of names, time points per character
(``--time-points`` plus the ends of books).
"""

from __future__ import annotations

import math

from incanon.bench.sizing import prompt_tokens, template_tokens, text_tokens
from incanon.canonbuild.pipeline import BuildOptions
from incanon.graph.chunking import text_chunks
from incanon.graph.config import GraphConfig
from incanon.graph.estimate import build_estimate
from incanon.ingest.reader import BookText
from incanon.runs.estimate import CallPattern, EstimateLine, RunEstimate, estimate_run
from incanon.templates import PromptLibrary

WORDS_PER_SCENE = 900
SCENE_REPLY_TOKENS = 70
NAME_TOKENS = 8
NAMES_PER_CHAPTER = 3
SHEET_REPLY_TOKENS = 320


def _row(label: str, model: str, sizes: list[tuple[int, int]], note: str) -> RunEstimate:
    items = [{"id": str(k), "input": {"p": p, "c": c}} for k, (p, c) in enumerate(sizes)]
    line = EstimateLine(label, model, lambda item: CallPattern(calls=1, min_calls=1, max_calls=2,
                                                               prompt_tokens=int(item.input["p"]),
                                                               completion_tokens=int(item.input["c"])), note=note)
    return estimate_run(items, [line])


def estimate_build(book: BookText, options: BuildOptions, model: str, prompts: PromptLibrary, *,
                   graph: GraphConfig | None = None) -> RunEstimate:
    """The predicted helper use of building ``book`` (calls no model)."""
    split = [c for c in book.chapters if not c.scenes]
    scenes_per = {(c.book, c.number): len(c.scenes) or min(options.scenes_per_chapter,
                                                           max(1, math.ceil(len(c.text.split()) / WORDS_PER_SCENE)))
                  for c in book.chapters}
    rows: list[RunEstimate] = []
    rows.append(_row("scenes: split (per chapter)", model,
                     [(prompt_tokens("canon_scene_split", [book.title, c.title, c.text[:60000]], prompts),
                       scenes_per[(c.book, c.number)] * SCENE_REPLY_TOKENS) for c in split],
                     f"one call per chapter; a reply of ~{SCENE_REPLY_TOKENS} tokens per scene"))
    participant_sizes = []
    for c in book.chapters:
        n = scenes_per[(c.book, c.number)]
        participant_sizes += [(prompt_tokens("timechara_scene_participants", [book.title], prompts)
                               + text_tokens(c.text) // n, 40)] * n
    rows.append(_row("scenes: participants (per scene)", model, participant_sizes,
                     f"assumes one scene per {WORDS_PER_SCENE} words, at most {options.scenes_per_chapter} per chapter"))
    names = NAMES_PER_CHAPTER * len(book.chapters)
    rows.append(_row("characters: names grouped", model,
                     [(template_tokens("canon_characters", prompts) + names * NAME_TOKENS, names * NAME_TOKENS)],
                     f"assumes ~{names} distinct names"))
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
        chunks = [ch for c in book.chapters
                  for ch in text_chunks(c.text, f"{c.book}-{c.number}", config.chunk_tokens, config.overlap_tokens)]
        rows.append(build_estimate(chunks, config, model, prompts))
    total_rows = [r for est in rows for r in est.rows]
    return RunEstimate(items=len(book.chapters), samples=len(book.chapters), rows=total_rows,
                       prices=rows[0].prices)


__all__ = ["estimate_build"]
