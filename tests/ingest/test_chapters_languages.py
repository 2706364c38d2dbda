"""Books in other European languages, collections of stories, and chapters without titles
(text written for the test, in the layouts of real e-texts)."""

from __future__ import annotations

from incanon.ingest.chapters import scan_chapters
from incanon.ingest.titlepage import find_title_page

NL = "De wind stak op en de schipper keek naar de lucht boven het water, waar de wolken zich samenpakten. " * 4
EN = "The lamp burned low in the window and the street below was quiet for once, save for a cart. " * 4


def test_a_dutch_title_page_and_its_notes_at_the_end() -> None:
    page = ("                 DE GOEDE SCHIPPER,\n\n                        OF\n\n   HOE HET DORP EEN HAVEN KREEG.\n\n"
            "               VERHAAL VOOR DE JEUGD,\n\n                      DOOR\n\n                  J. DE VRIES.\n\n\n")
    assert find_title_page(page) == ("De Goede Schipper", "J. De Vries")
    text = (page + f"HOOFDSTUK I\n\nEen Storm op Zee.\n\n{NL}\n\nHOOFDSTUK II\n\nDe Haven.\n\n{NL}\n\n"
            f"HOOFDSTUK III\n\nThuis.\n\n{NL}\n\nAANTEEKENINGEN.\n\n[1] Een schipper is de baas van een schip.\n")
    scan = scan_chapters(text)
    assert [c.title for c in scan.chapters] == ["Een Storm op Zee.", "De Haven.", "Thuis."]
    assert "baas van een schip" not in scan.chapters[-1].text
    assert any("from 'AANTEEKENINGEN.' on are back matter" in n for n in scan.notes)


def test_title_pages_in_german_french_and_chinese() -> None:
    assert find_title_page("DIE LAMPE\n\nVON\n\nANNA WEBER\n\n\nVERLAG\n") == ("Die Lampe", "Anna Weber")
    assert find_title_page("LA LAMPE\n\npar Marie Dubois\n\n") == ("La Lampe", "Marie Dubois")
    assert find_title_page("《灯下记》某某\n\n") == ("灯下记", "某某")
    assert find_title_page("灯下记\n作者：某某\n\n") == ("灯下记", "某某")
    # "de" opens Dutch prose too: a sentence is no credit
    assert find_title_page("Het Huis\n\nde wind stak op en de deur sloeg dicht\n\n") == ("", "")


def test_back_matter_in_other_languages_is_no_chapter() -> None:
    for heading in ("Anmerkungen", "NOTEN", "Fußnoten", "Notas", "注释"):
        text = f"Kapitel 1\n\n{NL}\n\nKapitel 2\n\n{NL}\n\n{heading}\n\n1. Eine Anmerkung.\n"
        scan = scan_chapters(text)
        assert len(scan.chapters) == 2 and "Anmerkung." not in scan.chapters[-1].text, heading


def test_a_contents_list_in_dutch_is_no_chapter() -> None:
    text = (f"INHOUD\n\nHOOFDSTUK I. De Storm\nHOOFDSTUK II. De Haven\n\n\nHOOFDSTUK I. De Storm\n\n{NL}\n\n"
            f"HOOFDSTUK II. De Haven\n\n{NL}\n")
    scan = scan_chapters(text)
    assert [c.title for c in scan.chapters] == ["De Storm", "De Haven"]


def test_a_collection_of_stories_with_numbered_sections() -> None:
    text = (f"TALES OF THE HARBOUR\n\nBy Wren Callow\n\nCONTENTS\n\nThe Red Lamp\nThe Glass Key\n\n\n"
            f"I. THE RED LAMP\n\nI.\n\n{EN}\n\nII.\n\n{EN}\n\nIII.\n\n{EN}\n\n"
            f"II. THE GLASS KEY\n\nI.\n\n{EN}\n\nII.\n\n{EN}\n")
    scan = scan_chapters(text)
    assert [c.title for c in scan.chapters] == ["THE RED LAMP", "THE GLASS KEY"]
    assert scan.chapters[0].text.count("lamp burned") == 12


def test_a_chapter_is_never_titled_by_its_first_sentence() -> None:
    text = (f"Chapter 1\n\n\n{EN}\n\nChapter 2\n\n\nOn my return, I found the following letter from my father:—\n\n"
            f"{EN}\n\nChapter 3\n\n\n{EN}\n\nChapter 4\n\n\nIt was late.\n\n{EN}\n")
    assert [c.title for c in scan_chapters(text).chapters] == ["Chapter 1", "Chapter 2", "Chapter 3", "Chapter 4"]
    assert scan_chapters(text).chapters[1].text.startswith("On my return")
