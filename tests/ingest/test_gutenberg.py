"""Project Gutenberg e-texts: the header and licence go, the metadata names the book."""

from __future__ import annotations

from pathlib import Path

from incanon.ingest.gutenberg import header_title, is_gutenberg, strip_gutenberg

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "examples" / "book" / "saltmere.txt"


def test_current_layout_loses_header_and_licence_and_keeps_metadata() -> None:
    text = SAMPLE.read_text(encoding="utf-8")
    g = strip_gutenberg(text)
    assert (g.title, g.author, g.language, g.ebook) == ("The Clock of Saltmere", "Incanon Sample Press", "English", "99999")
    assert "Gutenberg" not in g.body and "licence" not in g.body
    assert g.body.lstrip().startswith("The Clock of Saltmere") and g.body.rstrip().endswith("end of her life.")
    assert g.removed_words == len(text.split()) - len(g.body.split()) > 50


def test_old_layouts_crlf_and_small_print() -> None:
    old = ("The Project Gutenberg EBook of Old Tales, by A. Writer\r\n\r\nTitle: Old Tales\r\n"
           "*** START OF THIS PROJECT GUTENBERG EBOOK OLD TALES ***\r\n\r\nProduced by Volunteers\r\n\r\n"
           "Once there was a mill.\r\n\r\nEnd of the Project Gutenberg EBook of Old Tales, by A. Writer\r\nlicence\r\n")
    g = strip_gutenberg(old)
    assert g.title == "Old Tales" and g.body.strip() == "Once there was a mill."
    small = ("Title: X\n*** START OF THE PROJECT GUTENBERG EBOOK X ***\nlegal words\n*END*THE SMALL PRINT! FOR PUBLIC"
             " DOMAIN ETEXTS*Ver.04.29.93*END*\n\nThe story starts.\n")
    assert strip_gutenberg(small).body.strip() == "The story starts."


def test_a_text_without_the_start_marker_is_left_alone() -> None:
    text = "Chapter 1\n\nProject Gutenberg is mentioned inside a story.\n"
    assert not is_gutenberg(text)
    g = strip_gutenberg(text)
    assert g.body == text and g.title == "" and g.removed_words == 0


def test_a_start_marker_wrapped_over_two_lines_is_left_out() -> None:
    text = ("Title: The Lantern Road\nAuthor: Ada Merrow\n\n*** START OF THIS PROJECT GUTENBERG EBOOK\n"
            "THE LANTERN ROAD ***\n\n\nTHE LANTERN ROAD\n\nThe road was lit.\n")
    g = strip_gutenberg(text)
    assert g.body.strip().startswith("THE LANTERN ROAD\n") and "***" not in g.body


def test_the_ebook_line_names_a_copy_without_its_start_marker() -> None:
    assert header_title("\ufeffThe Project Gutenberg EBook of The Lantern Road, by\nAda Merrow\n\nThis eBook is for "
                        "the use of anyone anywhere.\n") == ("The Lantern Road", "Ada Merrow")
    assert header_title("Project Gutenberg’s The Glass Mill, by Ada Merrow\n\nChapter 1\n") == ("The Glass Mill",
                                                                                                 "Ada Merrow")
    assert header_title("Chapter 1\n\nNo line names this book.\n") == ("", "")


def test_an_end_line_naming_the_book_ends_the_story() -> None:
    text = ("Title: X\n*** START OF THE PROJECT GUTENBERG EBOOK X ***\nThe story ends.\n\n"
            "End of Project Gutenberg’s The Glass Mill, by Ada Merrow\n\n*** END OF THE PROJECT GUTENBERG EBOOK X ***\n")
    assert strip_gutenberg(text).body.strip() == "The story ends."
