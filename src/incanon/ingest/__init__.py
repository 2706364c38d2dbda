"""Turn source texts into canon records: markdown books into scenes and chunks, scripts into sessions.

The parsers here are deterministic and need no model; the LLM curation pipelines (plots,
conversations, profiles) build on their output.
"""

from incanon.ingest.markdown_book import (
    DEFAULT_CHUNK_WORDS,
    BookChapter,
    BookScene,
    ParsedBook,
    chunk_book,
    chunk_scenes,
    parse_markdown_book,
    split_text,
    word_count,
)
from incanon.ingest.transcript import Session, Turn, parse_transcript

__all__ = [
    "DEFAULT_CHUNK_WORDS",
    "BookChapter",
    "BookScene",
    "ParsedBook",
    "Session",
    "Turn",
    "chunk_book",
    "chunk_scenes",
    "parse_markdown_book",
    "parse_transcript",
    "split_text",
    "word_count",
]
