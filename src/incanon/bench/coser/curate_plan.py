"""``coser curate --dry-run``: what curating the books would take, before any model call.

Per book: chapter and part headings found, chunks, and the extraction calls with their prompt
tokens (chunk + instructions) and completion budget. Refinement and profile calls depend on what
extraction finds (one per conversation, one per character), so they are named, not counted;
repairs and carried-over text (dynamic chunking) come on top when they happen.
"""

from __future__ import annotations

from typing import Any, Sequence

from pydantic import BaseModel

from incanon.bench.coser.curate.chunking import chunk_text, count_tokens, find_headings


class BookPlan(BaseModel):
    """The dry-run figures of one book."""

    title: str
    chapters: int
    """Chapter headings found (scenes for a play)."""
    parts: int
    """Part / book / act headings found."""
    chunks: int
    extraction_calls: int
    prompt_tokens: int
    """Approximate prompt tokens of the extraction calls (chunk text + instructions)."""
    max_completion_tokens: int
    """Upper bound: ``--output-tokens`` per extraction call."""
    first_headings: list[str]
    later_calls: list[str]
    """Calls whose number is known only after extraction."""


def plan_books(sources: Sequence[Any], config: Any, library: Any) -> list[BookPlan]:
    """A :class:`BookPlan` per book source (``title`` and ``content``)."""
    instructions = count_tokens(library.source("coser_curate_extract")[0])
    plans = []
    for book in sources:
        headings = find_headings(book.content)
        chunks = chunk_text(book.content, config.max_tokens, config.min_tokens)
        later = []
        if config.refine:
            later.append("1 refinement per conversation")
        if config.profiles:
            later.append("1 profile + name unification per character")
        plans.append(BookPlan(
            title=book.title, chapters=sum(h.kind == "chapter" for h in headings),
            parts=sum(h.kind == "part" for h in headings), chunks=len(chunks), extraction_calls=len(chunks),
            prompt_tokens=sum(c.tokens for c in chunks) + instructions * len(chunks),
            max_completion_tokens=config.output_tokens * len(chunks),
            first_headings=[h.line.strip()[:40] for h in headings if h.kind == "chapter"][:3],
            later_calls=later,
        ))
    return plans
