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


def _one_file_epub(path: Path, title: str, body: str) -> Path:
    """pandoc's default layout: a title page, then the whole book in one XHTML document."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("mimetype", "application/epub+zip")
        z.writestr("META-INF/container.xml", '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:'
                   'opendocument:xmlns:container"><rootfiles><rootfile full-path="EPUB/content.opf" media-type='
                   '"application/oebps-package+xml"/></rootfiles></container>')
        z.writestr("EPUB/content.opf", '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0">'
                   f'<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>{title}</dc:title></metadata>'
                   '<manifest><item id="t" href="text/title_page.xhtml" media-type="application/xhtml+xml"/>'
                   '<item id="c" href="text/ch001.xhtml" media-type="application/xhtml+xml"/></manifest>'
                   '<spine><itemref idref="t"/><itemref idref="c"/></spine></package>')
        z.writestr("EPUB/text/title_page.xhtml", f"<html><body><h1>{title}</h1></body></html>")
        z.writestr("EPUB/text/ch001.xhtml", f"<html><head><title>{title}</title></head><body>{body}</body></html>")
    return path


ROAD = "<p>" + " ".join(["The road was made of glass and it rang under the cart wheels."] * 8) + "</p>"


def test_an_epub_in_one_document_is_split_at_its_headings_and_loses_the_site_suffix(tmp_path: Path) -> None:
    body = ("<h1>THE GLASS ROAD</h1><h2>by A. Author</h2><h2>Contents</h2><p>THE ROAD</p><p>THE INN</p><p>THE END</p>"
            f"<h2>THE ROAD</h2>{ROAD}<h2>THE INN</h2>{ROAD}{ROAD}<h2>THE END</h2>{ROAD}")
    book = read_book([_one_file_epub(tmp_path / "glass.epub", "The Glass Road | Project Gutenberg", body)])
    assert book.title == "The Glass Road"
    assert [c.title for c in book.chapters] == ["THE ROAD", "THE INN", "THE END"]
    assert book.chapters[1].text.count("cart wheels") == 16
    assert any("contents list: its 3 entries match" in n for n in book.notes)
    gutenberg = _one_file_epub(tmp_path / "pg.epub", "The Project Gutenberg eBook of The Glass Road, by A. Author", body)
    assert (read_book([gutenberg]).title, read_book([gutenberg]).author) == ("The Glass Road", "A. Author")


def test_an_epub_zip_bomb_is_refused_naming_the_entry(tmp_path: Path) -> None:
    from incanon.ingest.epub import read_epub

    bomb = _one_file_epub(tmp_path / "bomb.epub", "Bomb", f"<h2>ONE</h2>{ROAD}<p>{' ' * 3_000_000}</p>")
    assert bomb.stat().st_size < 100_000
    with pytest.raises(InputError, match=r"bomb.epub: EPUB/text/ch001.xhtml inside the EPUB inflates past the 1 MB"):
        read_epub(bomb, max_bytes=1024 * 1024)
    # The sizes a zip declares are not trusted: a header that lies is a bad archive, not a short read.
    raw = bytearray(bomb.read_bytes())
    with zipfile.ZipFile(bomb) as z:
        info = z.getinfo("EPUB/text/ch001.xhtml")
    entry = raw.rfind(b"PK\x01\x02", 0, raw.rfind(b"EPUB/text/ch001.xhtml"))  # its central directory record
    assert entry >= 0 and info.file_size > 3_000_000
    raw[entry + 24:entry + 28] = (1000).to_bytes(4, "little")  # the declared uncompressed size
    lying = tmp_path / "lying.epub"
    lying.write_bytes(bytes(raw))
    with pytest.raises(InputError, match="lying.epub: a document inside the EPUB cannot be inflated"):
        read_epub(lying)


def test_a_book_over_the_size_limit_is_refused_before_reading(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import incanon.ingest.reader as reader

    monkeypatch.setattr(reader, "MAX_BOOK_BYTES", 1024)
    (tmp_path / "huge.txt").write_text("Chapter 1\n\n" + "word " * 1000, encoding="utf-8")
    with pytest.raises(InputError, match=r"huge.txt: the book is 0.0 MB; a book may hold at most .* MB of text"):
        read_book([tmp_path / "huge.txt"])


def test_a_text_without_metadata_is_named_by_its_title_page_and_keeps_its_parts(tmp_path: Path) -> None:
    lamp = " ".join(["The keeper trimmed the lamp and wrote the names of the ships."] * 5)
    path = tmp_path / "pg999.txt"
    path.write_text(f"\n\nTHE LANTERN ROAD\n\nby Ada Merrow\n\n\n\nPART ONE--The Harbour\n\n\nCHAPTER I\n\n{lamp}\n\n"
                    f"CHAPTER II\n\n{lamp}\n\n\nPART TWO--The Island\n\n\nCHAPTER III\n\n{lamp}\n", encoding="utf-8")
    book = read_book([path])
    assert (book.title, book.author) == ("The Lantern Road", "Ada Merrow")
    assert [(c.book, c.number, c.part) for c in book.chapters] == [
        (1, 1, "PART ONE--The Harbour"), (1, 2, "PART ONE--The Harbour"), (2, 1, "PART TWO--The Island")]
    assert any("title 'The Lantern Road' by Ada Merrow from its title page" in n for n in book.notes)
    named = tmp_path / "copy.txt"
    named.write_text("The Project Gutenberg EBook of The Lantern Road, by Ada Merrow\n\nThis eBook is for the use of "
                     f"anyone.\n\nCHAPTER I\n\n{lamp}\n", encoding="utf-8")
    assert (read_book([named]).title, read_book([named]).author) == ("The Lantern Road", "Ada Merrow")
