"""One reader for every builder: Gutenberg e-texts, markdown with authored scenes, folders, EPUB."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from incanon.errors import InputError, NotFoundError
from incanon.ingest.reader import read_book

ROOT = Path(__file__).resolve().parents[2]


def test_gutenberg_sample_reads_title_author_parts_and_chapters() -> None:
    book = read_book([ROOT / "examples" / "book" / "saltmere.txt"])
    assert (book.title, book.author) == ("The Clock of Saltmere", "Incanon Sample Press")
    assert [(c.book, c.number, c.title) for c in book.chapters] == [
        (1, 1, "The Clockmaker's Shop"), (1, 2, "The Stopped Clock"), (2, 1, "The Storm"), (2, 2, "The Reckoning")]
    assert not any("Gutenberg" in c.text for c in book.chapters)
    assert any("header and licence left out" in n for n in book.notes)


def test_markdown_with_scene_markers_keeps_the_authors_scenes() -> None:
    raw = read_book([ROOT / "examples" / "timechara" / "books" / "raw" / "tidewater.md"])
    assert raw.chapters and not any(c.scenes for c in raw.chapters)  # no markers: the splitter's job
    marked = read_book([ROOT / "examples" / "rolerag" / "lantern_keeper.md"])
    assert marked.title and all(c.scenes for c in marked.chapters)
    assert sum(len(c.scenes) for c in marked.chapters) > len(marked.chapters)


def test_folder_of_chapter_files_in_natural_order(tmp_path: Path) -> None:
    folder = tmp_path / "book"
    folder.mkdir()
    for n, text in ((10, "The tenth."), (2, "The second."), (1, "The first.")):
        (folder / f"{n:d}_chapter.txt").write_text(text + "\n", encoding="utf-8")
    (folder / ".hidden.txt").write_text("no", encoding="utf-8")
    book = read_book([folder], title="Files")
    assert [c.text for c in book.chapters] == ["The first.", "The second.", "The tenth."]
    assert [c.number for c in book.chapters] == [1, 2, 3] and book.chapters[0].title == "chapter"


def _epub(path: Path, chapters: list[tuple[str, str]]) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("mimetype", "application/epub+zip")
        z.writestr("META-INF/container.xml", '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:'
                   'opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type='
                   '"application/oebps-package+xml"/></rootfiles></container>')
        items = "".join(f'<item id="c{k}" href="c{k}.xhtml" media-type="application/xhtml+xml"/>' for k in range(len(chapters)))
        spine = "".join(f'<itemref idref="c{k}"/>' for k in range(len(chapters)))
        z.writestr("OEBPS/content.opf", '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0">'
                   '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Glass Road</dc:title>'
                   f'<dc:creator>A. Author</dc:creator></metadata><manifest>{items}</manifest><spine>{spine}</spine></package>')
        for k, (title, body) in enumerate(chapters):
            z.writestr(f"OEBPS/c{k}.xhtml", f"<html><head><title>t</title><style>p{{}}</style></head><body><h1>{title}</h1>"
                       + "".join(f"<p>{p}</p>" for p in body.split("\n")) + "</body></html>")
    return path


def test_epub_spine_order_metadata_and_front_matter_skipped(tmp_path: Path) -> None:
    long = "\n".join(["The road was made of glass and it rang under the cart wheels all the way."] * 8)
    path = _epub(tmp_path / "glass.epub", [("Copyright", "All rights reserved."), ("The Road", long), ("The Inn", long)])
    book = read_book([path])
    assert (book.title, book.author) == ("Glass Road", "A. Author")
    assert [c.title for c in book.chapters] == ["The Road", "The Inn"]
    assert book.chapters[0].text.count("\n\n") == 7 and "<p>" not in book.chapters[0].text


def test_bad_input_names_the_file(tmp_path: Path) -> None:
    with pytest.raises(NotFoundError, match="does not exist"):
        read_book([tmp_path / "missing.txt"])
    empty = tmp_path / "empty.txt"
    empty.write_text("  \n", encoding="utf-8")
    with pytest.raises(InputError, match="empty"):
        read_book([empty])
    broken = tmp_path / "broken.epub"
    broken.write_bytes(b"not a zip")
    with pytest.raises(InputError, match="broken.epub.*not an EPUB|not an EPUB"):
        read_book([broken])
    (tmp_path / "nothing").mkdir()
    with pytest.raises(InputError, match="no .txt"):
        read_book([tmp_path / "nothing"])
