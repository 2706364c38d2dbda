"""Chinese and Japanese chapter headings, in the layouts real e-texts use (text written for the test)."""

from __future__ import annotations

from incanon.ingest.chapters import scan_chapters

# Hard-wrapped lines, no blank line between paragraphs: Project Gutenberg's Chinese layout.
PARA = "　　话说那日天色将晚，众人聚在廊下说笑，忽听外头一阵喧嚷，\n不知是何缘故，便都起身往门前看去．\n" * 6


def _gutenberg_layout() -> str:
    return (
        f"第一回　灯下初逢旧相识　雨中再遇远来人\n{'-' * 60}\n{PARA}"
        # heading alone on its line, separator lines, then the title on a line of its own
        f"第二回\n\n{'-' * 60}\n\n{'-' * 15}\n\n　　　　　　　　 寻旧宅误入深巷　问故人始知前因\n\n{PARA}"
        # prose lines that start with a heading's words are prose
        "第二回了．你怎么还不知道这件事，可见是不留心的．\n"
        f"{PARA}"
        # the same heading printed twice in a row
        f"第三回　听琴声夜游东园　看花灯醉归西院\n{'-' * 50}\n\n第三回　听琴声夜游东园　看花灯醉归西院\n\n{'-' * 50}\n"
        "第二回中既将众人的来历略已表明，此回则另叙一事．\n"
        f"{PARA}"
        # numbers written digit by digit (一二零), and one written 一百二十
        f"第一一九回　别故园\n{PARA}第一二零回　归去来\n{PARA}"
    )


def test_chinese_headings_traps_and_all() -> None:
    scan = scan_chapters(_gutenberg_layout())
    assert [c.title for c in scan.chapters] == [
        "灯下初逢旧相识　雨中再遇远来人", "寻旧宅误入深巷　问故人始知前因", "听琴声夜游东园　看花灯醉归西院", "别故园", "归去来"]
    assert "第二回了" in scan.chapters[1].text  # the prose line stays in its chapter
    assert scan.chapters[2].text.startswith("第二回中既将")
    assert not scan.chapters[1].text.startswith("-")  # separator lines are no chapter text
    assert [h.key for h in scan.headings] == [("回", 1), ("回", 2), ("回", 3), ("回", 119), ("回", 120)]


def test_spaced_layout_parts_and_a_prologue() -> None:
    text = (f"《灯下记》某某\n\n楔子　缘起\n\n{PARA}\n\n卷一\n\n第1章 初逢\n\n{PARA}\n\n第2章 再遇\n\n{PARA}\n\n"
            f"卷二\n\n第一章 别离\n\n{PARA}\n\n尾声\n\n{PARA}")
    chapters = scan_chapters(text).chapters
    assert [(c.book, c.title) for c in chapters] == [(1, "楔子　缘起"), (2, "初逢"), (2, "再遇"), (3, "别离"), (3, "尾声")]
    assert chapters[1].part == "卷一"


def test_a_book_of_volumes_only_reads_its_volumes_as_chapters() -> None:
    chapters = scan_chapters(f"卷一\n\n{PARA}\n\n卷二\n\n{PARA}\n\n卷三\n\n{PARA}").chapters
    assert [c.title for c in chapters] == ["卷一", "卷二", "卷三"]


def test_a_lone_numeral_left_by_line_wrapping_is_no_heading_but_a_paragraph_of_it_is() -> None:
    wrapped = f"第一回 灯下\n{PARA}说毕，将腰间系的\n一\n条汗巾子解了下来．\n{PARA}"
    assert len(scan_chapters(wrapped).chapters) == 1
    japanese = f"一\n\n{PARA}\n\n二\n\n{PARA}\n\n三\n\n{PARA}"
    assert [c.title for c in scan_chapters(japanese).chapters] == ["一", "二", "三"]


def test_annotations_after_each_chapter_do_not_end_the_story() -> None:
    text = f"第一回 灯下\n\n{PARA}\n\n注释\n\n一条注．\n\n第二回 雨中\n\n{PARA}\n\n注释\n\n二条注．\n"
    assert [c.title for c in scan_chapters(text).chapters] == ["灯下", "雨中"]
