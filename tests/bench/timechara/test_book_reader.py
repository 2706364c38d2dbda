"""``timechara build --book`` reads books through the project's one reader: a Gutenberg e-text's
chapters (found by the one chapter detector), numbered on across its parts."""

from __future__ import annotations

from pathlib import Path

from incanon.bench.timechara.book import read_book

ROOT = Path(__file__).resolve().parents[3]


def test_a_gutenberg_text_gives_titled_chapters_without_the_licence() -> None:
    book = read_book(ROOT / "examples" / "book" / "saltmere.txt")
    assert book.title == "The Clock of Saltmere" and book.number == 1
    assert [(c.number, c.title) for c in book.chapters] == [
        (1, "The Clockmaker's Shop"), (2, "The Stopped Clock"), (3, "The Storm"), (4, "The Reckoning")]
    assert [s.id for s in book.scenes()] == ["1-1-1", "1-2-1", "1-3-1", "1-4-1"]
    assert not any("Gutenberg" in s.text for s in book.scenes())


def test_a_markdown_book_with_chapter_headings_is_parsed_as_before() -> None:
    book = read_book(ROOT / "examples" / "timechara" / "books" / "raw" / "tidewater.md")
    assert book.title == "The Tidewater Ledger" and len(book.chapters) == 3
