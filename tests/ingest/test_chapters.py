"""The one chapter detector: parts number books, contents lists open nothing, titles on the next line."""

from __future__ import annotations

from incanon.ingest.chapters import scan_chapters, split_chapters

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


# Fixtures in the layouts of real Project Gutenberg e-texts, with sentences of our own.

def _para(sentence: str, times: int = 4) -> str:
    return " ".join([sentence] * times)


LAMP = _para("The keeper trimmed the lamp and wrote the names of the ships in the long book.")


def _titles(text: str) -> list[str]:
    return [c.title for c in split_chapters(text)]


def test_caps_titles_may_hold_abbreviations_but_not_sentences() -> None:
    # Jekyll and Hyde's layout: ALL-CAPS chapter titles, some holding "MR." or "DR.".
    text = "\n\n\n".join(["THE KEEPER'S LOG", LAMP, "SEARCH FOR MR. FINCH", LAMP, "DR. HALE WAS QUITE AT EASE", LAMP,
                          "ST. AGNES'S BELL", LAMP + "\n\nHE RAN. THEN HE STOPPED.\n\n" + LAMP])
    assert _titles(text) == ["THE KEEPER'S LOG", "SEARCH FOR MR. FINCH", "DR. HALE WAS QUITE AT EASE",
                             "ST. AGNES'S BELL"]


CONTENTS_WITH_LEADERS = f"""THE GULL

by Ada Merrow


     CONTENTS

     PART ONE
     The Harbour

     1.  THE GREY GULL INN . . . . . . . . . .  11
     2.  A KNOCK AT NIGHT  . . . . . . . . . .  17
     3.  NARRATIVE CONTINUED BY THE COOK:
            THE BROKEN OAR . . . . . . . . . .  24

     PART TWO
     The Island

     4.  THE LANDING . . . . . . . . . . . . .  30
     5.  AND LAST  . . . . . . . . . . . . . .  36




THE GULL




PART ONE--The Harbour




1

The Grey Gull Inn


{LAMP}


2

A Knock at Night


{LAMP}


3

Narrative Continued by the Cook: The Broken Oar


{LAMP}




PART TWO--The Island




4

The Landing


{LAMP}


5

And Last


{LAMP}
"""


def test_a_contents_list_with_dotted_leaders_is_no_chapter_and_parts_number_right() -> None:
    # Treasure Island's layout: entries with page numbers, one wrapped over two lines.
    scan = scan_chapters(CONTENTS_WITH_LEADERS)
    assert [(c.book, c.number, c.title, c.part) for c in scan.chapters] == [
        (1, 1, "The Grey Gull Inn", "PART ONE--The Harbour"), (1, 2, "A Knock at Night", "PART ONE--The Harbour"),
        (1, 3, "Narrative Continued by the Cook: The Broken Oar", "PART ONE--The Harbour"),
        (2, 1, "The Landing", "PART TWO--The Island"), (2, 2, "And Last", "PART TWO--The Island")]
    assert "contents list: its 5 entries match the chapters found" in scan.notes


STORIES = f"""THE CASEBOOK

   I. The Red Lamp
  II. The Glass Key



ADVENTURE I. THE RED LAMP

I.

{LAMP}

II.

{LAMP}

III.

{LAMP}



ADVENTURE II. THE GLASS KEY

I.

{LAMP}

II.

{LAMP}



III. THE LAST CASE

{LAMP}
"""


def test_numbered_sections_inside_named_stories_are_not_chapters() -> None:
    # The Adventures of Sherlock Holmes' layout: "ADVENTURE I. ..." then sections I., II., III.
    scan = scan_chapters(STORIES)
    assert [c.title for c in scan.chapters] == ["THE RED LAMP", "THE GLASS KEY", "THE LAST CASE"]
    assert scan.chapters[0].text.count(LAMP) == 3
    assert any("5 numbered section(s)" in n for n in scan.notes)
    # Moby-Dick's layout: numbered rules inside a chapter, and a sentence that starts with "I.".
    rules = (f"CHAPTER 1. Law.\n\n{LAMP}\n\nI. A boat made fast belongs to the crew fast to it.\n\n"
             f"II. A loose boat is fair game for anybody.\n\n{LAMP} So he said to\nI. But the tide was against us,"
             f" and the cook said so.\n\nCHAPTER 2. Order.\n\n{LAMP}\n")
    assert _titles(rules) == ["Law.", "Order."]


WHALE = f"""THE WHALE ROAD

By Ada Merrow


CONTENTS

ETYMOLOGY.

EXTRACTS.

CHAPTER 1. Departure.

CHAPTER 2. The Long Calm, and What the Cook Said
About It.

CHAPTER 3. Landfall.

Epilogue




ETYMOLOGY.

{LAMP}

EXTRACTS.

{LAMP}



CHAPTER 1. Departure.

{LAMP}

CHAPTER 2. The Long Calm, and What the Cook Said
About It.

{LAMP}

CHAPTER 3. Landfall.

{LAMP}

Epilogue

{LAMP}
"""


def test_a_contents_list_before_front_matter_and_an_epilogue_last() -> None:
    # Moby-Dick's layout: "CHAPTER 1. Loomings." listed, then Etymology and Extracts, then the text.
    scan = scan_chapters(WHALE)
    assert [c.title for c in scan.chapters] == ["Departure.", "The Long Calm, and What the Cook Said About It.",
                                                "Landfall.", "Epilogue"]
    assert scan.chapters[1].text == LAMP
    assert "contents list: its 4 entries match the chapters found" in scan.notes


ILLUSTRATED = f"""[Illustration:

      THE HARBOUR BOOKS
      PUBLISHER
                                   ]


[Illustration: ·THE BELL·




Chapter I.]


{LAMP}

[Illustration:

     “He came by the ferry”

     CHAPTER IX.
]




CHAPTER II.

{LAMP}
"""


def test_illustration_captions_are_never_headings() -> None:
    # Pride and Prejudice (illustrated): the caption's closing "]" and its lines are no chapter;
    # the caption that is the only "Chapter I." heading still is one, without its bracket.
    assert _titles(ILLUSTRATED) == ["Chapter I.", "CHAPTER II."]


def test_five_digit_chapter_numbers_and_numbering_that_jumps() -> None:
    text = "\n\n".join(f"Chapter {n}\n\n{LAMP}" for n in (9998, 9999, 10000, 10001, 10002))
    scan = scan_chapters(text)
    assert [c.title for c in scan.chapters] == [f"Chapter {n}" for n in (9998, 9999, 10000, 10001, 10002)]
    assert not scan.notes
    gap = "\n\n".join(f"Chapter {n}\n\n{LAMP}" for n in (1, 2, 4))
    assert any("'Chapter 2' is followed by 'Chapter 4'" in n for n in scan_chapters(gap).notes)


def test_the_contents_list_is_compared_with_the_headings_found() -> None:
    text = "\n\n".join(["CONTENTS", "Chapter 1. Arrival", "Chapter 2. The Storm", "Chapter 3. Departure", "",
                        "Chapter 1. Arrival", LAMP, "Chapter 3. Departure", LAMP, "Chapter 4. The Fog", LAMP])
    (note,) = [n for n in scan_chapters(text).notes if "contents" in n]
    assert "listed but not found as a heading: 'Chapter 2. The Storm'" in note
    assert "found but not listed: '1-3 The Fog'" in note



def test_a_run_in_chapter_starts_after_its_title_and_back_matter_is_left_out() -> None:
    # A converted EPUB's layout: each chapter one line, heading, title and text run together.
    text = ("Table of Contents\n\n BOOK THE FIRST\n\n CHAPTER 1  The Lamp  It was late when the lamps were lit.\n\n"
            " CHAPTER 2  The Road  The road ran east all night.\n\nENDNOTES\n\n1 The lamps were oil lamps.\n")
    scan = scan_chapters(text)
    assert [(c.title, c.text) for c in scan.chapters] == [("The Lamp", "It was late when the lamps were lit."),
                                                          ("The Road", "The road ran east all night.")]
    assert any("words from 'ENDNOTES' on are back matter" in n for n in scan.notes)


def test_centred_numerals_and_an_ellipsis_in_a_title_are_headings() -> None:
    text = f"                 XII\n\n{LAMP}\n\n                 XIII\n\n{LAMP}\n\nChapter 14: And then...\n\n{LAMP}\n"
    assert [c.heading.strip() for c in split_chapters(text)] == ["XII", "XIII", "Chapter 14: And then..."]


def test_a_markdown_heading_may_have_its_text_on_the_next_line() -> None:
    text = "## 2020-01-01\nAna: Morning, Ben.\nBen: Still baking.\n\n## 2020-01-05\nDee: Is Gus at the mill?\nEve: He is.\n"
    assert _titles(text) == ["2020-01-01", "2020-01-05"]
