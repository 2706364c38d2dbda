"""HTML books in Project Gutenberg's layout (markup and text written for the test)."""

from __future__ import annotations

from pathlib import Path

import pytest

from incanon.errors import InputError
from incanon.ingest.html_book import html_text
from incanon.ingest.reader import read_book

P = "<p>The lamp burned low in the window and the street below was quiet for once, save for a cart.</p>" * 5

GUTENBERG_HTML = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>The Project Gutenberg eBook of The Red Lamp, by Wren Callow</title>
<style>p {{ margin: 0 }}</style></head>
<body>
<section class="pg-boilerplate pgheader" id="pg-header">
<h2 id="pg-header-heading">The Project Gutenberg eBook of The Red Lamp, by Wren Callow</h2>
<p>This ebook is for the use of anyone anywhere.</p>
<div id="pg-machine-header"><p><strong>Title</strong>: The Red Lamp</p><p><strong>Author</strong>: Wren Callow</p></div>
<div id="pg-start-separator"><span>*** START OF THE PROJECT GUTENBERG EBOOK THE RED LAMP ***</span></div>
</section>
<h1>THE RED LAMP</h1>
<p class="center">by Wren Callow</p>
<div class="chapter">
<h2><a id="c1"></a>CHAPTER I.<br>The Window</h2>
{P}<p>She looked out.<a class="fnanchor" href="#f1">[1]</a><span class="pagenum"><a id="Page_2">[Pg 2]</a></span></p>
<div class="footnote"><p><a id="f1">[1]</a> A note about the window.</p></div>
</div>
<div class="chapter"><h2>CHAPTER II.<br>The Street</h2>{P}</div>
<div class="chapter"><h2>CHAPTER III.<br>The Cart</h2>{P}<p>Line one<br>line two</p></div>
<section class="pg-boilerplate pgfooter" id="pg-footer">
<div id="pg-end-separator"><span>*** END OF THE PROJECT GUTENBERG EBOOK THE RED LAMP ***</span></div>
<p>Updated editions will replace the previous one. Project Gutenberg licence text.</p>
</section>
</body></html>
"""


def test_html_becomes_text_with_its_chapter_headings_marked() -> None:
    read = html_text(GUTENBERG_HTML)
    assert "<" not in read.text.replace("<br", "")
    assert "## CHAPTER I. The Window" in read.text
    assert "Pg 2" not in read.text and "A note about the window" not in read.text
    assert "Line one\nline two" in read.text
    assert read.footnotes == 1
    assert read.title.startswith("The Project Gutenberg eBook of The Red Lamp")


@pytest.mark.parametrize("name", ["red-lamp.html", "red-lamp.htm", "red-lamp.xhtml"])
def test_a_gutenberg_html_book_reads_like_its_text(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text(GUTENBERG_HTML, encoding="utf-8")
    book = read_book([path])
    assert (book.title, book.author) == ("The Red Lamp", "Wren Callow")
    assert [c.title for c in book.chapters] == ["The Window", "The Street", "The Cart"]
    assert not any("licence text" in c.text or "DOCTYPE" in c.text for c in book.chapters)
    assert any("1 footnote(s) left out" in n for n in book.notes)


def test_a_folder_holding_one_html_book_is_read(tmp_path: Path) -> None:
    folder = tmp_path / "book"
    (folder / "images").mkdir(parents=True)
    (folder / "images" / "cover.jpg").write_bytes(b"\xff\xd8")
    (folder / "pg-h.htm").write_text(GUTENBERG_HTML, encoding="utf-8")
    assert len(read_book([folder]).chapters) == 3


def test_chapters_titled_only_by_name_and_a_title_page_heading() -> None:
    html = (f'<html><head><title>De Haven</title></head><body><h1 class="docTitle">De Haven,<br>of<br>Het Dorp</h1>'
            f'<h2 class="byline">Verhaal<br>door<br>J. Jansen.</h2><h1>Een Storm op Zee.</h1>{P}'
            f"<h1>Thuis.</h1>{P}</body></html>")
    text = html_text(html).text
    assert "## Een Storm op Zee." in text and "## De Haven" not in text


def test_html_without_text_is_refused_by_name(tmp_path: Path) -> None:
    path = tmp_path / "empty.html"
    path.write_text("<html><head><title>x</title></head><body><script>var a;</script></body></html>", encoding="utf-8")
    with pytest.raises(InputError, match="empty.html: the HTML file holds no text"):
        read_book([path])
