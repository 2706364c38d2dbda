"""Static chunking (chapter regexes, merge small, split large), input files and sentence location."""

from __future__ import annotations

import json

import pytest

from incanon.bench.coser.curate import chunk_text, find_headings, find_sentence, locate_plot, read_books
from incanon.errors import InputError, NotFoundError
from incanon.sample import sample_paths


def _para(words: int, tag: str = "w") -> str:
    return " ".join(f"{tag}{i}." if i % 12 == 11 else f"{tag}{i}" for i in range(words))


HEADED = "\n\n".join([
    "PART ONE", "CHAPTER I", _para(30), "Chapter 2: The Fall", _para(30), "Chapter Three", _para(30),
    "IV", _para(30), "5. A Titled One", _para(30), "## The Harbour", _para(30),
    "Epilogue", _para(30), "Part 2", "Chap. 9", _para(30),
])


def test_every_heading_form_is_found_and_numbered():
    found = [(h.line, h.kind, h.number) for h in find_headings(HEADED)]
    assert found == [
        ("PART ONE", "part", 1), ("CHAPTER I", "chapter", 1), ("Chapter 2: The Fall", "chapter", 2),
        ("Chapter Three", "chapter", 3), ("IV", "chapter", 4), ("5. A Titled One", "chapter", 5),
        ("## The Harbour", "chapter", 6), ("Epilogue", "chapter", 7),
        ("Part 2", "part", 8), ("Chap. 9", "chapter", 8),
    ]


def _chapters(text: str) -> list[str]:
    return [h.line for h in find_headings(text) if h.kind == "chapter"]


def test_unicode_spaces_in_headings():
    # Project Gutenberg: "Chapter\xa01." (non-breaking space); others use thin or en spaces.
    text = "\n\n".join(f"Chapter{space}{i}." + "\n\n" + _para(20) for i, space in
                       enumerate(["\xa0", "\u2009", "\u2002", " \xa0", "\t"], start=1))
    assert _chapters(text) == ["Chapter\xa01.", "Chapter\u20092.", "Chapter\u20023.", "Chapter \xa04.", "Chapter\t5."]
    assert len(chunk_text(text, max_tokens=40)) > 1


def test_heading_run_into_its_first_paragraph_and_book_parts():
    text = "\n".join([" BOOK THE FIRST ", " CHAPTER 1  The Lamp  It was late when the lamps were lit.",
                      " CHAPTER 2  The Road  The road ran east.", "THE END OF THE FIRST BOOK ",
                      " BOOK THE SECOND ", " CHAPTER 1  The Ferry  Nobody waited."])
    found = [(h.line.strip()[:12], h.kind) for h in find_headings(text)]
    assert found == [("BOOK THE FIR", "part"), ("CHAPTER 1  T", "chapter"), ("CHAPTER 2  T", "chapter"),
                     ("BOOK THE SEC", "part"), ("CHAPTER 1  T", "chapter")]


def test_plays_have_acts_and_scenes():
    text = "\n\n".join(["THE PERSONS OF THE PLAY", "DUKE OF MILAN", "Act I", "Scene 1", _para(20), "Scene 2",
                        _para(20), "ACT II", "SCENE 1", _para(20), "Act three", "Scene 1", _para(20)])
    found = [(h.line, h.kind) for h in find_headings(text)]
    assert found == [("Act I", "part"), ("Scene 1", "chapter"), ("Scene 2", "chapter"), ("ACT II", "part"),
                     ("SCENE 1", "chapter"), ("Act three", "part"), ("Scene 1", "chapter")]


def test_back_matter_and_contents_are_not_chapters():
    story = "\n\n".join(["CONTENTS", "Chapter 1: Arrival", "Chapter 2: Departure", "Chapter 1: Arrival", _para(60),
                          "Chapter 2: Departure", _para(60)])
    notes = "\n\n".join(["ENDNOTES", "## Chapter 1: Arrival", "1 (p. 3) a note.", "## Chapter 2: Departure", "2 a note."])
    assert _chapters(story + "\n\n" + notes + "\n\n## Table of Contents\n\n- page-1") == [
        "Chapter 1: Arrival", "Chapter 2: Departure"]


def test_titled_caps_chapters_when_the_book_has_no_numbers():
    text = "\n\n".join(["THE LONG NIGHT", _para(30), "MORNING AT THE FERRY", _para(30)])
    assert _chapters(text) == ["THE LONG NIGHT", "MORNING AT THE FERRY"]


def test_prose_is_not_a_heading():
    text = "He said chapter and verse.\n\nThe part of him that knew.\n\nI went home.\n\n1984 was a year of rain and more."
    assert find_headings(text) == []


def test_small_chapters_merge_and_chunks_tile_the_text():
    chunks = chunk_text(HEADED, max_tokens=200)
    assert "".join(c.text for c in chunks) == HEADED
    assert all(c.tokens <= 200 for c in chunks)
    assert len(chunks) < len(find_headings(HEADED))  # merged
    assert all(c.tokens >= 100 for c in chunks[:-1])  # at least half the budget, but the last


def test_a_large_chapter_is_split_at_paragraphs_into_balanced_pieces():
    text = "Chapter 1\n\n" + "\n\n".join(_para(40, f"p{k}_") for k in range(10))
    chunks = chunk_text(text, max_tokens=300)
    assert "".join(c.text for c in chunks) == text
    assert all(c.tokens <= 300 for c in chunks)
    assert all(c.text.rstrip().endswith(".") or c.text.endswith("\n\n") or c is chunks[-1] for c in chunks)
    sizes = [c.tokens for c in chunks]
    assert max(sizes) - min(sizes) < 120  # no sliver at the end


def test_a_paragraph_over_budget_is_split_at_sentences():
    text = _para(600)
    chunks = chunk_text(text, max_tokens=100)
    assert "".join(c.text for c in chunks) == text and all(c.tokens <= 100 for c in chunks)


def test_sample_book_chapters_start_chunks():
    text = read_books([sample_paths().books[0]])[0].content
    chunks = chunk_text(text, max_tokens=1200)
    chapters = [h for h in find_headings(text) if h.kind == "chapter"]
    assert len(chapters) == 3
    for h in chapters:  # a chapter opens its chunk (after at most the book's own heading)
        chunk = next(c for c in chunks if c.start <= h.start < c.end)
        assert text[chunk.start : h.start].strip() in ("", "# The Wall-Lamps", "# Book 1: The Wall-Lamps")
    assert [h.number for c in chunks for h in c.chapters] == [1, 2, 3]
    assert len(chunks) > 3 and all(c.tokens <= 1200 for c in chunks)


def test_read_books_from_jsonl_and_text(tmp_path):
    jsonl = tmp_path / "books.jsonl"
    jsonl.write_text(json.dumps({"title": "One", "author": "A", "content": "Text one."}) + "\n\n"
                     + json.dumps({"title": "Two/2", "content": "Text two."}) + "\n")
    md = tmp_path / "three.md"
    md.write_text("# Book 3: The Lantern\n\n<!-- scene 3-1-1 -->\n## Chapter 1\n\nProse.\n")
    books = read_books([jsonl, md], author="Someone")
    assert [(b.title, b.author) for b in books] == [("One", "A"), ("Two/2", ""), ("The Lantern", "Someone")]
    assert books[1].file_title == "Two-2" and books[1].slug == "two-2"
    assert "<!--" not in books[2].content


@pytest.mark.parametrize(("line", "message"), [
    ("not json", r"bad\.jsonl \(line 1\): malformed JSON"),
    (json.dumps({"title": "", "content": "x"}), r"\(line 1\): field .title. must be"),
    (json.dumps(["x"]), r"\(line 1\): expected an object"),
])
def test_bad_jsonl_names_file_and_line(tmp_path, line, message):
    path = tmp_path / "bad.jsonl"
    path.write_text(line + "\n")
    with pytest.raises(InputError, match=message):
        read_books([path])


def test_missing_and_duplicate_books(tmp_path):
    with pytest.raises(NotFoundError):
        read_books([tmp_path / "none.txt"])
    (tmp_path / "a.txt").write_text("x")
    with pytest.raises(InputError, match="share the title"):
        read_books([tmp_path / "a.txt", tmp_path / "a.txt"])


TEXT = ('The Lamphouse smelled of oil. Wren came through the door at a run.\n\n"You\'re late, child," said '
        'Ottilie.\n\n"Spare me," said Dace, without looking up. The hall was quiet.')


def test_sentences_are_matched_despite_typos_and_quote_styles():
    span = locate_plot(TEXT, "Wren came thru the door at a run", "“Spare me,” said Dace without looking up.")
    assert span is not None
    assert TEXT[span[0]:span[1]].startswith("Wren came") and TEXT[span[0]:span[1]].endswith("looking up.")


def test_unmatched_sentences_are_not_found():
    assert find_sentence(TEXT, "An entirely different sentence about whales.") is None
    assert locate_plot(TEXT, "Nothing like it at all, really.", "The hall was quiet.") is None
    # A cut-off plot whose last sentence is missing runs to the end when asked.
    span = locate_plot(TEXT, "Wren came through the door at a run.", "gone", to_end_if_missing=True)
    assert span == (TEXT.index("Wren"), len(TEXT))
