"""EPUB layouts real books come in: one file per chapter of a Chinese novel, file names with
spaces, a spine listing a document twice (content written for the test)."""

from __future__ import annotations

import zipfile
from pathlib import Path

from incanon.ingest.reader import read_book

CHAPTER = "话说那日天色将晚，众人聚在廊下说笑，忽听外头一阵喧嚷，不知是何缘故。"  # 30 characters, no spaces


def _epub(path: Path, docs: list[tuple[str, str]], spine: list[int] | None = None) -> Path:
    """An EPUB of ``docs`` (file name, XHTML body); hrefs are percent-encoded as a URL's are."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("mimetype", "application/epub+zip")
        z.writestr("META-INF/container.xml", '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:'
                   'opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type='
                   '"application/oebps-package+xml"/></rootfiles></container>')
        items = "".join(f'<item id="d{k}" href="{name.replace(" ", "%20")}" media-type="application/xhtml+xml"/>'
                        for k, (name, _) in enumerate(docs))
        refs = "".join(f'<itemref idref="d{k}"/>' for k in (spine if spine is not None else range(len(docs))))
        z.writestr("OEBPS/content.opf", '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" '
                   'version="3.0"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>灯下记</dc:title>'
                   f'<dc:creator>某某</dc:creator></metadata><manifest>{items}</manifest><spine>{refs}</spine></package>')
        for name, body in docs:
            z.writestr(f"OEBPS/{name}", f'<html xmlns="http://www.w3.org/1999/xhtml"><body>{body}</body></html>')
    return path


def _numeral(n: int) -> str:
    digits = "〇一二三四五六七八九"
    return "".join(digits[int(d)] for d in str(n))  # 一二零: digit by digit, as e-texts write it


def test_one_file_per_chapter_of_a_120_chapter_chinese_novel_keeps_every_chapter(tmp_path: Path) -> None:
    docs = [("title page.xhtml", "<h1>灯下记</h1><p>某某 著</p>")]
    # Each chapter about 200 characters: under 80 whitespace-separated words, and no spaces at all.
    docs += [(f"Chapter {n}.xhtml", f"<h2>第{_numeral(n)}回</h2>" + f"<p>{CHAPTER * 7}</p>") for n in range(1, 121)]
    book = read_book([_epub(tmp_path / "novel.epub", docs)])
    assert len(book.chapters) == 120
    assert (book.chapters[0].title, book.chapters[-1].title) == ("第一回", "第一二〇回")
    assert (book.title, book.author) == ("灯下记", "某某")
    assert 100_000 > book.words > 12_000  # 25,200 characters: half a word each


def test_a_spine_listing_a_document_twice_reads_it_once(tmp_path: Path) -> None:
    docs = [("one.xhtml", f"<h2>第一回</h2><p>{CHAPTER * 7}</p>"), ("two.xhtml", f"<h2>第二回</h2><p>{CHAPTER * 7}</p>")]
    book = read_book([_epub(tmp_path / "twice.epub", docs, spine=[0, 0, 1, 1])])
    assert [c.title for c in book.chapters] == ["第一回", "第二回"]


def test_one_document_holding_the_whole_chinese_book_is_split_at_its_headings(tmp_path: Path) -> None:
    body = "".join(f"<h2>第{_numeral(n)}回　灯下第{n}夜</h2><p>{CHAPTER * 7}</p>" for n in range(1, 13))
    book = read_book([_epub(tmp_path / "one.epub", [("book file.xhtml", body)])])
    assert len(book.chapters) == 12 and book.chapters[-1].title.endswith("灯下第12夜")
