"""Pointers to later parts of a book are read in prose: books by any numbering, chapters and acts
only where the work has one book."""

from __future__ import annotations

import pytest

from incanon.canon.parts import later_parts
from incanon.canon.position import Position


@pytest.mark.parametrize(("text", "books", "found"), [
    ("Her teacher Ottilie dies in book three.", 3, ["book three"]),
    ("In Book II the flood comes.", 3, ["Book II"]),
    ("as the third volume tells", 3, ["third volume"]),
    ("At the end of book 1 she wins.", 3, []),
    ("In chapter 5 she sings.", 3, []),  # which book's chapter 5? not read
    ("In chapter 5 she sings.", 1, ["chapter 5"]),
    ("Act IV ends it.", 1, ["Act IV"]),
    ("I went in act i.", 1, []),  # a lower-case "i" is not a numeral
    ("Chapter 2 and chapter 3.", 1, []),
])
def test_later_parts(text: str, books: int, found: list[str]) -> None:
    assert later_parts(text, Position.parse("1-3"), books=books) == found


def test_dates_have_no_parts() -> None:
    assert later_parts("book three", Position.parse("2020-01-01"), books=3) == []
