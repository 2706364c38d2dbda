"""``incanon timechara build --book FILE.md --dry-run``: the calls a raw-book build would make.

Scene extraction is one call per chapter and the participant step one per scene. How many
scenes the helper finds is not known before it runs, so the build's own steps are estimated as
if every chapter gave ``per_chapter`` scenes (its text cut in equal parts): an upper bound for
the scene steps, an approximation for the tokens.
"""

from __future__ import annotations

import tempfile

from incanon.bench.sizing import prompt_tokens
from incanon.bench.timechara.book import BookOptions, book_world
from incanon.bench.timechara.build import BuildOptions
from incanon.bench.timechara.build_estimate import SUMMARY_TOKENS, StepEstimate, estimate_build
from incanon.bench.timechara.scenes import ExtractedScene, ExtractionResult
from incanon.canon.store import CanonStore
from incanon.ingest.markdown_book import ParsedBook
from incanon.templates import PromptLibrary, default_library


def _even_parts(text: str, n: int) -> list[str]:
    words = text.split()
    size = max(1, -(-len(words) // n))
    return [" ".join(words[i:i + size]) for i in range(0, len(words), size)][:n]


def estimate_book_build(book: ParsedBook, work_id: str, title: str, main: list[str], book_options: BookOptions,
                        options: BuildOptions, *, check_gold: bool = True,
                        prompts: PromptLibrary | None = None) -> tuple[int, list[StepEstimate]]:
    """(scenes assumed, the estimates of the extraction, participant and build steps)."""
    prompts = prompts or default_library()
    n = book_options.per_chapter
    guessed = ExtractionResult()
    extract_in = 0
    for chapter in book.chapters:
        text = "\n\n".join(s.text for s in chapter.scenes)
        extract_in += prompt_tokens("timechara_scene_extract", [title, text[:40000]], prompts)
        for k, part in enumerate(_even_parts(text, n), 1):
            guessed.scenes.append(ExtractedScene(book.number, chapter.number, 0, 0, part, "", [], [], k))
    scenes = len(guessed.scenes)
    chapters = len(book.chapters)
    part_in = sum(prompt_tokens("timechara_scene_participants", [title, s.text], prompts) for s in guessed.scenes)
    steps = [
        # The reply copies the scenes out: about as long as the text it quotes.
        StepEstimate("helper: scene extraction (per chapter)", chapters, 2 * chapters, extract_in,
                     sum(prompt_tokens("timechara_scene_participants", [s.text], prompts) for s in guessed.scenes)),
        StepEstimate("helper: scene participants", scenes, 2 * scenes, part_in, scenes * SUMMARY_TOKENS),
    ]
    world = book_world(book, work_id, title, main, guessed)
    with tempfile.TemporaryDirectory(prefix="incanon-dry-") as tmp:
        store = CanonStore.open(tmp)
        try:
            store.import_world(world)
            used, build_steps = estimate_build(store, work_id, options, check_gold=check_gold, prompts=prompts)
        finally:
            store.close()
    return used, steps + build_steps


__all__ = ["estimate_book_build"]
