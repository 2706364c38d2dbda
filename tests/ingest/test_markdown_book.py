"""Markdown books: structure, scene ids, errors with line numbers, chunking within a budget."""

from __future__ import annotations

import re

import pytest

from incanon.errors import ConfigError, InputError
from incanon.ingest import chunk_book, parse_markdown_book, split_text, word_count

BOOK = """\
# Book 2: The Middle

Some preface words.

## Chapter 1: First
<!-- scene 2-1-1 -->
Alpha one.

Alpha two.
<!-- scene 2-1-2 -->
Beta.
## Chapter 2: Second
An epigraph.
<!-- a note for the author -->
<!-- scene 2-2-1 -->
Gamma.
"""


def test_structure_titles_ids_and_text():
    book = parse_markdown_book(BOOK, source="b2.md")
    assert (book.number, book.title, book.source) == (2, "The Middle", "b2.md")
    assert book.preface == "Some preface words."
    assert [(c.number, c.title) for c in book.chapters] == [(1, "First"), (2, "Second")]
    assert [s.id for s in book.scenes()] == ["2-1-1", "2-1-2", "2-2-1"]
    first = book.scenes()[0]
    assert (first.book, first.chapter, first.number, first.position) == (2, 1, 1, "2-1-1")
    assert first.text == "Alpha one.\n\nAlpha two."
    assert first.line == 6
    # text before a chapter's first marker opens that scene; author comments are dropped
    assert book.scenes()[2].text == "An epigraph.\nGamma."
    assert book.word_count() == 8


def test_chapters_without_scene_markers_become_one_scene_each():
    text = "# A Book\n## Chapter 1: Start\nOne.\n\nTwo.\n## Chapter 2\nThree.\n## Interlude\nFour.\n"
    book = parse_markdown_book(text, book=4)
    assert book.number == 4 and book.title == "A Book"
    assert [(s.id, s.text) for s in book.scenes()] == [
        ("4-1-1", "One.\n\nTwo."),
        ("4-2-1", "Three."),
        ("4-3-1", "Four."),  # an unnumbered heading follows the previous chapter
    ]
    assert book.chapters[2].title == "Interlude"


def test_book_number_defaults_to_one_and_argument_must_agree_with_heading():
    assert parse_markdown_book("## Chapter 1\nText.\n").scenes()[0].id == "1-1-1"
    with pytest.raises(InputError, match=r"line 1\).*book 2 but book=3"):
        parse_markdown_book("# Book 2: X\n## Chapter 1\nA.\n", book=3, source="x.md")


@pytest.mark.parametrize(
    ("text", "line", "expected"),
    [
        ("# Book 1: X\n<!-- scene 1-1-1 -->\nA.\n", 2, "before any chapter heading: expected '## Chapter N"),
        ("# Book 1: X\n## Chapter 1\n<!-- scene 1-2-1 -->\nA.\n", 3, "expected an id starting with '1-1-'"),
        ("# Book 1: X\n## Chapter 1\n<!-- scene 2-1-1 -->\nA.\n", 3, "does not match its place"),
        ("# Book 1: X\n## Chapter 1\n<!-- scene 1-1-1 -->\nA.\n<!-- scene 1-1-1 -->\nB.\n", 5, "duplicate scene id '1-1-1' (first on line 3)"),
        ("# Book 1: X\n## Chapter 1\n<!-- scene 1-one-1 -->\nA.\n", 3, "not three numbers"),
        ("# Book 1: X\n## Chapter 1\n<!-- scene 1-1 -->\nA.\n", 3, "not three numbers"),
        ("# Book 1: X\n## Chapter 1\n<!-- scene 1-1-\u00b2 -->\nA.\n", 3, "not three numbers"),
        ("# Book 1: X\n## Chapter 1\n<!-- scene 1-1-99999999 -->\nA.\n", 3, "chapter and scene must be"),
        ("# Book 1: X\n## Chapter 1\n<!-- scene 1-1-2 -->\nA.\n<!-- scene 1-1-1 -->\n", 5, "expected scene numbers to increase"),
        ("## Chapter 2\nA.\n## Chapter 1\nB.\n", 3, "expected chapter numbers to increase"),
        ("## Chapter 1\nA.\n# Book 2: Y\n", 3, "book heading must come before"),
        ("# Book 1: X\n# Book 2: Y\n", 2, "a second book heading"),
    ],
)
def test_bad_structure_names_file_line_and_expectation(text, line, expected):
    with pytest.raises(InputError) as info:
        parse_markdown_book(text, source="broken.md")
    message = str(info.value)
    assert message.startswith(f"broken.md (line {line}): ")
    assert expected in message
    assert info.value.where == f"line {line}"


def _words(n: int, start: int = 0) -> str:
    return " ".join(f"w{i}" for i in range(start, start + n))


def test_split_text_packs_paragraphs_within_budget_and_loses_nothing():
    paragraphs = [_words(40, 0), _words(30, 40), _words(50, 70), _words(10, 120)]
    text = "\n\n".join(paragraphs)
    pieces = split_text(text, max_words=80)
    assert [word_count(p) for p in pieces] == [70, 60]
    assert [q for p in pieces for q in p.split("\n\n")] == paragraphs  # whole paragraphs only
    assert " ".join(pieces).split() == text.split()
    assert split_text(text, max_words=1000) == [text]


def test_split_text_cuts_long_paragraph_at_sentences_then_words():
    sentences = [f"{_words(6, 10 * i)}." for i in range(10)]  # ten sentences of six words
    paragraph = " ".join(sentences)
    pieces = split_text(paragraph, max_words=20)
    assert all(word_count(p) <= 20 for p in pieces)
    assert all(p.endswith(".") for p in pieces)  # cut at sentence ends
    assert " ".join(pieces).split() == paragraph.split()
    giant = _words(55)
    assert [word_count(p) for p in split_text(giant, max_words=20)] == [20, 20, 15]


def test_split_text_keeps_closing_quotes_with_their_sentence():
    text = '"Go now." She went. (He stayed.) Then rain.'
    assert split_text(text, max_words=2) == ['"Go now."', "She went.", "(He stayed.)", "Then rain."]


def test_split_text_rejects_a_budget_below_one():
    with pytest.raises(ConfigError):
        split_text("a b c", max_words=0)


def test_chunk_book_ids_positions_and_budget():
    long_scene = "\n\n".join(_words(100, 100 * i) for i in range(5))
    text = f"# Book 1: X\n## Chapter 2: Y\n<!-- scene 1-2-1 -->\n{long_scene}\n<!-- scene 1-2-2 -->\nShort.\n"
    book = parse_markdown_book(text, source="x.md")
    chunks = chunk_book(book, max_words=250)
    assert [c.id for c in chunks] == ["1-2-1#0", "1-2-1#1", "1-2-1#2", "1-2-2#0"]
    assert [word_count(c.text) for c in chunks] == [200, 200, 100, 1]
    assert {c.scene for c in chunks[:3]} == {"1-2-1"}
    assert all(c.position == c.scene and c.source == "x.md" for c in chunks)
    assert re.fullmatch(r"\d+-\d+-\d+#\d+", chunks[-1].id)
