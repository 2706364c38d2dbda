"""One book-file reader for every reader of books: ``canon build``, CoSER's curation, ``graph build``
and TimeChara's index decode, strip and name a book file the same way."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from incanon.bench.coser.curate import read_books
from incanon.bench.timechara.index import read_chapters
from incanon.bench.timechara.published import series_info
from incanon.errors import InputError
from incanon.graph.chunking import read_document
from incanon.ingest.bookfile import named_in_text, read_book_file
from incanon.ingest.reader import read_book

SRC = Path(__file__).resolve().parents[2] / "src" / "incanon"

STORY = ("CHAPTER I\n\nThe café by the harbour served crème brûlée to the keeper, who paid in coins.\n\n"
         "CHAPTER II\n\nAt dawn the keeper walked to the lighthouse and counted the gulls.\n")
GUTENBERG = ("The Project Gutenberg EBook of The Harbour Café, by Mara Quill\n\n"
             "*** START OF THIS PROJECT GUTENBERG EBOOK THE HARBOUR CAFÉ ***\n\n" + STORY
             + "\n*** END OF THIS PROJECT GUTENBERG EBOOK THE HARBOUR CAFÉ ***\n\nThe licence text follows here.\n")


def _latin1(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode("cp1252"))
    return path


def test_a_gutenberg_file_in_cp1252_is_decoded_stripped_and_named(tmp_path: Path) -> None:
    read = read_book_file(_latin1(tmp_path, "cafe.txt", GUTENBERG))
    assert "crème brûlée" in read.text and "licence" not in read.text and "START OF" not in read.text
    assert (read.title, read.author) == ("The Harbour Café", "Mara Quill")
    assert [n.split(":")[0] for n in read.notes] == ["cafe.txt", "cafe.txt"]
    assert "Windows-1252" in read.notes[0] and "licence left out" in read.notes[1]


def test_a_markdown_title_line_is_the_title_and_authors_notes_go(tmp_path: Path) -> None:
    path = tmp_path / "book.md"
    path.write_text("# The Harbour Café\n\n<!-- draft two -->\n" + STORY, encoding="utf-8")
    read = read_book_file(path)
    assert read.title == "The Harbour Café" and "draft two" not in read.text and read.text.lstrip().startswith("CHAPTER I")
    kept = read_book_file(path, markdown=False)
    assert kept.title == "" and "draft two" in kept.text  # graph build keeps markdown whole


def test_a_title_page_names_a_book_without_metadata() -> None:
    text = "THE HARBOUR CAFÉ\n\nby Mara Quill\n\n\n" + STORY
    assert named_in_text(text, text, text.index("CHAPTER I")) == ("The Harbour Café", "Mara Quill", "its title page")
    assert named_in_text(STORY, STORY, 0) == ("", "", "its title page")


def test_an_empty_file_is_named_with_what_it_was_meant_to_be(tmp_path: Path) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_text("  \n", encoding="utf-8")
    with pytest.raises(InputError, match="empty.txt.*the corpus file is empty"):
        read_book_file(empty, what="corpus file")


def test_every_reader_of_books_reads_a_cp1252_gutenberg_file_alike(tmp_path: Path) -> None:
    path = _latin1(tmp_path, "cafe.txt", GUTENBERG)
    built = read_book([path])
    curated = read_books([path])[0]
    document = read_document(path)
    folder = tmp_path / "series" / "book_1"
    folder.mkdir(parents=True)
    chapter = _latin1(folder, "chapter_1.txt", STORY)
    series = series_info("harry_potter")
    assert series is not None
    indexed = read_chapters([folder.parent], series)[0]
    assert (built.title, built.author) == (curated.title, curated.author) == ("The Harbour Café", "Mara Quill")
    for text in (curated.content, document.text, indexed.text, built.chapters[0].text):
        assert "crème brûlée" in text and "licence text" not in text


def test_no_reader_of_books_decodes_a_book_file_by_itself() -> None:
    # The readers that once decoded books their own way (strict UTF-8, their own Gutenberg rules)
    # go through incanon.ingest; a direct read_text / Path.read_text there is a second reader.
    readers = ["bench/timechara/book.py", "bench/timechara/index.py", "bench/coser/curate/sources.py",
               "graph/chunking.py", "ingest/reader.py"]
    found = []
    for rel in readers:
        tree = ast.parse((SRC / rel).read_text(encoding="utf-8"))
        for func in ast.walk(tree):
            if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(func):
                if isinstance(node, ast.Call):
                    name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
                    if name in ("read_text", "strip_gutenberg", "decode_text", "decode"):
                        found.append(f"{rel}:{func.name} {name}")
    # CoSER's JSONL records are JSON, not book files: the one allowed read_text.
    assert found == ["bench/coser/curate/sources.py:_jsonl read_text"]
