"""``coser curate`` on a Project Gutenberg e-text: the book is named by its metadata, and the
header and licence never reach the helper."""

from __future__ import annotations

from pathlib import Path

from incanon.bench.coser.curate import chunk_text, read_books

BOOK = Path(__file__).resolve().parents[3] / "examples" / "book" / "saltmere.txt"


def test_gutenberg_text_is_named_by_its_metadata_and_loses_the_licence() -> None:
    (book,) = read_books([BOOK])
    assert (book.title, book.author, book.slug) == ("The Clock of Saltmere", "Incanon Sample Press",
                                                    "the-clock-of-saltmere")
    chunks = chunk_text(book.content, max_tokens=200)
    assert not any("Gutenberg" in c.text or "licence" in c.text for c in chunks)
    assert sum(len(c.chapters) for c in chunks) == 4
    assert chunks[-1].text.rstrip().endswith("end of her life.")
