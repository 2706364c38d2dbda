"""The one chapter detector: parts number books, contents lists open nothing, titles on the next line."""

from __future__ import annotations

from incanon.ingest.chapters import split_chapters

CONTENTS_AND_PARTS = """The Book

CONTENTS

 PART ONE
 I. Arrival
 PART TWO
 II. Departure


PART ONE


I. Arrival


They came by the night train. Nobody met them at the station.


PART TWO


 II.
 Departure


They left in the morning, as quietly as they came.
"""


def test_parts_number_books_and_a_contents_list_is_no_chapter() -> None:
    chapters = split_chapters(CONTENTS_AND_PARTS)
    assert [(c.book, c.number, c.title) for c in chapters] == [(1, 1, "Arrival"), (2, 1, "Departure")]
    assert chapters[0].text.startswith("They came by the night train.")
    assert chapters[1].text == "They left in the morning, as quietly as they came."


def test_no_heading_is_one_chapter_and_a_long_opening_is_kept() -> None:
    assert [(c.book, c.number) for c in split_chapters("Just a story.\n\nThe end.\n")] == [(1, 1)]
    opening = "word " * 400
    chapters = split_chapters(opening + "\n\nChapter 1\n\nThe first chapter proper begins here.\n")
    assert [(c.number, c.title) for c in chapters] == [(1, ""), (2, "Chapter 1")]
    assert split_chapters("   \n") == []
