"""CoSER curation: books → plots, conversations and character profiles (CoSER §3.2, App. A.3).

>>> books = read_books(["book.jsonl"])                                    # doctest: +SKIP
>>> report = await curate_book(books[0], model, "out/", store=canon)     # doctest: +SKIP

Modules: ``sources`` (input files), ``chunking`` (chapter regexes, budgets), ``extract`` (one
chunk, with ``calls``' repair-and-retry and ``locate``'s fuzzy sentence matching),
``continuation`` (plots cut off at a chunk's end), ``refine``, ``names``, ``profiles``,
``assemble`` (CoSER JSON and canon ``World``), ``journal`` (resume) and ``pipeline``.
"""

from incanon.bench.coser.curate.assemble import build_book, build_world, place_plots, split_index
from incanon.bench.coser.curate.calls import CallStats, ReadError, RetryPlan, call_structured
from incanon.bench.coser.curate.chunking import CHAPTER_PATTERNS, Chunk, Heading, chunk_text, count_tokens, find_headings
from incanon.bench.coser.curate.continuation import PlotDraft, continue_plots
from incanon.bench.coser.curate.extract import ExtractSettings, extract_chunk, read_extraction
from incanon.bench.coser.curate.locate import find_sentence, locate_plot, sentence_spans
from incanon.bench.coser.curate.pipeline import BookCuration, BookReport, ChunkReport, CurationConfig, curate_book
from incanon.bench.coser.curate.schema import ChunkExtraction, ExtractedPlot, SchemaLimits, extraction_schema
from incanon.bench.coser.curate.sources import BookSource, read_books

__all__ = [
    "CHAPTER_PATTERNS",
    "BookCuration",
    "BookReport",
    "BookSource",
    "CallStats",
    "Chunk",
    "ChunkExtraction",
    "ChunkReport",
    "CurationConfig",
    "ExtractSettings",
    "ExtractedPlot",
    "Heading",
    "PlotDraft",
    "ReadError",
    "RetryPlan",
    "SchemaLimits",
    "build_book",
    "build_world",
    "call_structured",
    "chunk_text",
    "continue_plots",
    "count_tokens",
    "curate_book",
    "extract_chunk",
    "extraction_schema",
    "find_headings",
    "find_sentence",
    "locate_plot",
    "place_plots",
    "read_books",
    "read_extraction",
    "sentence_spans",
    "split_index",
]
