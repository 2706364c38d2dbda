"""A book without metadata is named by its title page: the first lines, before the first heading."""

from __future__ import annotations

import pytest

from incanon.ingest.titlepage import find_title_page, title_case


@pytest.mark.parametrize(("page", "expected"), [
    # Jekyll and Hyde, Treasure Island: the title, then "by NAME".
    ("\n\n\nTHE STRANGE CASE OF DR. FELL AND MR. PIKE\n\nby Ada Merrow\n\n\n\n", (
        "The Strange Case of Dr. Fell and Mr. Pike", "Ada Merrow")),
    # Moby-Dick: a title over two lines, joined after its semicolon.
    ("Produced by Some Volunteers\n\n\n\nTHE GREY WHALE;\n\nor, THE LONG ROAD.\n\nBy Ada Merrow\n\n\nCONTENTS\n", (
        "The Grey Whale; or, the Long Road", "Ada Merrow")),
    # Frankenstein, Sherlock Holmes: "by" alone, the name on the next line; a subtitle dropped.
    ("THE GLASS MILL\n\nA STORY OF THE MARSHES\n\nby\n\nSIR ADA MERROW\n", ("The Glass Mill", "Sir Ada Merrow")),
    # Dracula: the title set twice, "_by_"; an edition note in brackets skipped.
    ("DRACULIN\n\nDRACULIN\n\n[1901 Edition]\n\n_by_\n\nAda Merrow\n", ("Draculin", "Ada Merrow")),
    # Alice: no "by", a name under the title.
    ("ALICE’S JOURNEY UNDER THE HILL\n\nAda Merrow\n\nTHE FULCRUM EDITION 3.0\n", (
        "Alice’s Journey Under the Hill", "Ada Merrow")),
    # Pride and Prejudice (illustrated): a title over three lines of one paragraph.
    ("[Illustration:\n\n  A PUBLISHER\n  ]\n\n   PRIDE.\n    and\n  PREJUDGE\n\n     by\n   Ada Merrow,\n", (
        "Pride and Prejudge", "Ada Merrow")),
])
def test_title_pages(page: str, expected: tuple[str, str]) -> None:
    assert find_title_page(page) == expected


def test_text_that_is_no_title_page_names_nothing() -> None:
    assert find_title_page("It was a dark night. The keeper trimmed the lamp, and wrote.\n\nThen he slept.\n") == ("", "")
    assert find_title_page("") == ("", "")


def test_title_case_only_changes_capitals() -> None:
    assert title_case("A TALE OF TWO HARBOURS") == "A Tale of Two Harbours"
    assert title_case("The Lantern Road") == "The Lantern Road"


def test_a_cover_image_and_a_contents_heading_are_no_title_page() -> None:
    assert find_title_page("![001](../cover1.jpeg)\n\n\n\nTable of Contents\n\nFROM THE PAGES OF THE BOOK\n") == ("", "")
    assert find_title_page("Othello\n\nHerausgegeben von Dieter Hamblock\n\nReclam\n") == ("", "")
