"""The forms a chapter or part heading takes, and the line-level tests that tell one from prose.

:mod:`incanon.ingest.chapters` decides which of the lines found here are a book's headings; this
module only knows single lines: the patterns (:data:`FORMS`), what a heading's number and key
are, whether a line stands alone as a paragraph, whether a title reads like a sentence, and the
``[Illustration: ...]`` blocks of illustrated e-texts, whose caption lines are never headings.

Strong forms name themselves (``Chapter 12``, ``PART TWO``, ``## Title``) and are headings
wherever they stand, unless their title runs on into the next line (a sentence that happens to
start with "Book I."). Weak forms (a bare ``XII``, ``12. The Fall``, ``Prologue``, an ALL-CAPS
line) are headings only as a paragraph of their own, with a title that is not a sentence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from incanon.ingest.scripts import CJK_DIGITS, cjk_number

_NUMBER_WORDS = (
    "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|"
    "sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|"
    "first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|last|final"
)
_WORD_VALUES = {w: i for i, w in enumerate(
    "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen".split(), 1)}
_WORD_VALUES.update({w: 10 * i for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split(), 2)})
_WORD_VALUES.update({w: i for i, w in enumerate(
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth".split(), 1)})
_WORD_VALUES.update({"last": 999, "final": 999})
# Six digits: a serial published in 10,000+ numbered chapters still reads right.
_NUM = rf"(?:\d{{1,6}}|[ivxlcdm]{{1,8}}|(?:{_NUMBER_WORDS})(?:[- ](?:{_NUMBER_WORDS}))?)"
# ``[^\S\n]``: any whitespace but a newline (spaces, tabs, and Unicode spaces such as the
# non-breaking space Project Gutenberg puts in ``Chapter\xa01.``).
_S = r"[^\S\n]"
_PREFIX = rf"^{_S}*(?:#{{1,6}}{_S}*)?(?:\*\*|__)?{_S}*"
_END = rf"{_S}*(?:\*\*|__)?{_S}*#*{_S}*$"
_SUFFIX = rf"(?:{_S}*[:.\-–—]+{_S}*(?P<title>[^\n]{{0,100}}?))?" + _END
#: Contents lists in other languages (a ``CONTENTS`` line of theirs opens a contents list).
CONTENTS_WORDS = (r"inhoud|inhoudsopgave|inhalt|inhaltsverzeichnis|table\s+des\s+mati[èe]res|sommaire|[íi]ndice|"
                  r"sum[áa]rio|indholdsfortegnelse|inneh[åa]ll|содержание|оглавление|目录|目錄|目次|もくじ")
#: Back matter in other languages: after the story, it ends the chapters.
BACK_WORDS = (r"aant?eekeningen|aantekeningen|noten|bijlagen?|anmerkungen|fu(?:ß|ss)noten|anhang|glossar|register|"
              r"notes\s+du\s+traducteur|notas|note|annotazioni|appendice|примечания|комментарии|"
              r"注释|註釋|注釋|附录|附錄|参考文献|參考文獻|索引|后记|後記|跋|あとがき|注")
_FRONT_WORDS = (r"voorrede|voorbericht|inleiding|vorwort|vorrede|einleitung|pr[ée]face|avant-propos|prefacio|"
                r"prefazione|предисловие|序言?|自序|前言|凡例|まえがき")
FOREIGN_MATTER = rf"{CONTENTS_WORDS}|{BACK_WORDS}|{_FRONT_WORDS}"
_MATTER = (rf"(?:table{_S}+of{_S}+)?contents|end{_S}*notes|notes|index|glossary|bibliography|preface|"
           rf"acknowledge?ments?|about{_S}+the{_S}+author|copyright|appendix|list{_S}+of{_S}+(?:the{_S}+)?"
           rf"(?:illustrations|plates)|(?:original{_S}+)?transcriber[’']?s{_S}+notes?|dramatis{_S}+person\w*|"
           # The same in the languages of Gutenberg's shelves: Dutch, German, French, Spanish,
           # Italian, Portuguese, Swedish/Danish, Russian; and Chinese and Japanese.
           + FOREIGN_MATTER)
#: Chapter and part words of other languages (Dutch, German, French, Spanish, Italian, Russian,
#: Greek, Polish, Czech, Finnish), read as "chapter" and "part".
CHAPTER_WORDS = r"hoofdstuk|kapitel|chapitre|cap[íi]tulo|capitolo|глава|κεφ[άα]λαιο|rozdzia[łl]|kapitola|luku"
PART_WORDS = r"deel|teil|buch|partie|livre|tome|parte|libro|часть|том|книга|μ[έε]ρος"
_CHAPTER_WORD = re.compile(CHAPTER_WORDS, re.I)
_PART_WORD = re.compile(PART_WORDS, re.I)
_CJK_NO_TITLE = "\\s、，。．！？：；“”「」『』（）,.!?:;\"—…"
# After the unit: a space or a colon then a title (at most 60 characters), a title set straight
# after the unit that runs to the end of the line without punctuation (at most 30), or nothing.
_CJK_TITLE = (rf"(?:(?:{_S}|[:：．.、·—\-])+|(?=[^{_CJK_NO_TITLE}]{{1,30}}{_S}*$)|(?={_S}*$))"
              rf"(?P<title>[^\n]{{0,60}}?){_S}*$")


def _cjk_head(units: str) -> str:
    """第, a Chinese or Japanese numeral, one of ``units`` (第十二回, 第 12 章)."""
    return rf"第{_S}?(?P<num>[{CJK_DIGITS}]{{1,9}}){_S}?(?P<word>[{units}])"


_ABBREVIATIONS = r"(?:MR|MRS|MESSRS|DR|ST|MT|JR|SR|CAPT|COL|GEN|LT|REV|PROF|NO)\."


@dataclass(frozen=True)
class Form:
    """One way of writing a heading."""

    name: str
    kind: str
    """``matter``, ``chapter`` or ``part``."""
    pattern: re.Pattern[str]
    weak: bool = False
    """Only a heading as a paragraph of its own, with a title that is not a sentence."""


FORMS: tuple[Form, ...] = (
    # Front and back matter: not a chapter; after the story, back matter ends the chapters.
    Form("matter", "matter", re.compile(_PREFIX + rf"(?P<title>{_MATTER})[.:]?" + _END, re.I | re.M)),
    Form("keyword", "chapter", re.compile(
        _PREFIX + rf"(?P<word>chapter|chap\.?|ch\.|letter|adventure|stave|{CHAPTER_WORDS}){_S}+(?P<num>{_NUM})\b"
        + _SUFFIX,
        re.I | re.M)),
    # A heading run into its chapter's first paragraph on one line ("CHAPTER 1  The Period  It was ...").
    Form("runin", "chapter", re.compile(
        rf"^{_S}*(?P<word>CHAPTER){_S}+(?P<num>{_NUM})(?:{_S}{{2,}}(?P<title>[^\n]{{1,80}}?)(?={_S}{{2,}}\S))?"
        rf"(?={_S}{{2,}}\S)", re.I | re.M)),
    Form("part", "part", re.compile(
        _PREFIX + rf"(?P<word>part|book|volume|vol\.|act|{PART_WORDS}){_S}+(?:the{_S}+)?(?P<num>{_NUM})\b" + _SUFFIX,
        re.I | re.M)),
    # War and Peace: "FIRST EPILOGUE: 1813 - 20" holds chapters, as a part does.
    Form("epilogue-part", "part", re.compile(
        _PREFIX + rf"(?P<num>first|second|third|fourth|fifth|final|last){_S}+(?P<word>epilogue)\b" + _SUFFIX,
        re.I | re.M)),
    # Plays: a scene is the chapter, an act the part.
    Form("scene", "chapter", re.compile(_PREFIX + rf"(?P<word>scene){_S}+(?P<num>{_NUM})\b" + _SUFFIX, re.I | re.M)),
    # Chinese and Japanese: 第十二回, 第12章, 第一二零回 (the numeral, its unit, then the end of the line,
    # a space or a short title with no punctuation: "第二回了．你怎么..." is prose).
    Form("cjk", "chapter", re.compile(_PREFIX + _cjk_head("回章節节話话幕") + _CJK_TITLE, re.M)),
    Form("cjk-part", "part", re.compile(_PREFIX + _cjk_head("卷部篇集冊册") + _CJK_TITLE, re.M)),
    Form("cjk-volume", "part", re.compile(
        _PREFIX + rf"(?P<word>卷)[之第]?{_S}?(?P<num>[{CJK_DIGITS}]{{1,8}})" + _CJK_TITLE, re.M)),
    # A line of nothing but a numeral (一, 十二): a Japanese novel's sections.
    Form("cjk-bare", "chapter", re.compile(rf"^[^\S\n]*(?P<num>[{CJK_DIGITS}]{{1,6}})[^\S\n]*$", re.M), weak=True),
    Form("bare", "chapter", re.compile(_PREFIX + r"(?P<num>\d{1,3}|[IVXLCDM]{1,7})\.?" + _END, re.M), weak=True),
    Form("numbered", "chapter", re.compile(
        _PREFIX + rf"(?P<num>\d{{1,3}}|[IVXLCDM]{{1,7}})[.:]{_S}+(?P<title>[A-Z“\"‘'][^\n]{{0,80}}?){_S}*$", re.M),
        weak=True),
    Form("named", "chapter", re.compile(
        _PREFIX + r"(?P<title>(?:P(?i:rologue)|E(?i:pilogue)|I(?i:nterlude)|A(?i:fterword)|F(?i:oreword))\b"
        + r"[^\n]{0,80}?)" + _END, re.M), weak=True),
    # 楔子 (a Chinese novel's prologue), 尾声 (epilogue), 序章 / 終章 (Japanese), with a title or not.
    Form("cjk-named", "chapter", re.compile(
        _PREFIX + rf"(?P<title>(?:楔子|引子|引首|尾声|尾聲|终章|終章|序章)(?:{_S}+[^\n]{{1,40}}?)?){_S}*$", re.M), weak=True),
    Form("markdown", "chapter", re.compile(rf"^{_S}*#{{2,6}}{_S}+(?P<title>[^\n#]{{1,100}}?){_S}*#*{_S}*$", re.M)),
    # Last resort for titled chapters: a short ALL-CAPS line between blank lines, abbreviations
    # such as MR. and DR. allowed but no sentence (ignored when the book has numbered headings,
    # where such lines are title pages and cast lists).
    Form("titled", "chapter", re.compile(
        rf"(?:(?<=\n\n)|\A){_S}*(?P<title>(?=[A-Z])(?:\b{_ABBREVIATIONS}|[A-Z0-9 ,'’\-:;!?&])+?){_S}*(?=\n\n|\n?\Z)"),
        weak=True),
)
"""Every heading form; where several match a line, the first listed decides."""


@dataclass(frozen=True)
class Candidate:
    """A line some form matches: a heading unless the book's layout says otherwise."""

    start: int
    """Offset of the line."""
    end: int
    """Offset of the line's end (its newline)."""
    form: Form
    line: str
    """The line, stripped."""
    title: str
    """The title the form found on the line (may be empty)."""
    key: tuple[str, object]
    """See :func:`heading_key`."""

    @property
    def kind(self) -> str:
        return self.form.kind


#: Dotted leaders or a page number after a gap: a contents entry, never a heading.
LEADERS = re.compile(rf"(?:\.{_S}?){{2,}}{_S}*\d{{1,4}}{_S}*$|(?<=\S){_S}{{2,}}\d{{1,4}}{_S}*$")
_ROMAN = re.compile(r"^M{0,4}(?:CM|CD|D?C{0,3})(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})$")
_SENTENCE_BREAK = re.compile(r"[.!?][”\"’)\]]*[\s—–]+\S")
_INITIALS = re.compile(r"\b(?:[A-Z]|Mr|Mrs|Messrs|Dr|St|Mt|Jr|Sr|Capt|Col|Gen|Lt|Rev|Prof|No|MR|MRS|DR|ST)\.", )
_WORDS_OF = {"chap": "chapter", "chap.": "chapter", "ch.": "chapter", "book": "part", "volume": "part",
             "vol.": "part"}
_ILLUSTRATION = re.compile(r"\[Illustration\b(?:[^\[\]]|\[[^\[\]]{0,300}\]){0,4000}\]", re.I)


def number_of(token: str) -> int | None:
    """The value of a heading number: ``12``, ``XII``, ``twelve``, ``twenty-one``, ``first``,
    ``一百二十``, ``一二零`` (:func:`~incanon.ingest.scripts.cjk_number`)."""
    token = token.strip().rstrip(".").lower()
    if token.isdigit():
        return int(token)
    if token and _ROMAN.match(token.upper()):
        value, last = 0, 0
        for ch in reversed(token.upper()):
            v = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}[ch]
            value, last = (value - v, last) if v < last else (value + v, v)
        return value or None
    parts = re.split(r"[- ]", token)
    if all(p in _WORD_VALUES for p in parts):
        return sum(_WORD_VALUES[p] for p in parts)
    return cjk_number(token)


def heading_key(form: Form, match: re.Match[str]) -> tuple[str, object]:
    """What makes two heading lines the same heading (a contents entry and the heading it lists):
    ``("chapter", 12)`` for ``CHAPTER XII.``, ``("title", "epilogue")`` for ``Epilogue``."""
    groups = match.groupdict()
    num = groups.get("num")
    if num is not None:
        word = (groups.get("word") or ("num" if form.kind == "chapter" else form.kind)).lower()
        if _CHAPTER_WORD.fullmatch(word):
            word = "chapter"  # "HOOFDSTUK XII" and "Chapter 12" are the same heading
        elif _PART_WORD.fullmatch(word):
            word = "part"
        return _WORDS_OF.get(word, word), number_of(num)
    return "title", " ".join(re.sub(r"[^\w\s]", " ", (groups.get("title") or "").lower()).split())


def spaced(text: str) -> bool:
    """True when paragraphs are separated by blank lines (most books), so a heading can be told
    by standing alone; False for one-line-per-paragraph text, where every line stands alone."""
    return (text.count("\n\n") + text.count("\n\r\n")) * 12 >= text.count("\n") > 0


def line_bounds(text: str, start: int) -> tuple[int, int]:
    """(start, end) of the line holding offset ``start`` (end excludes the newline)."""
    line_start = text.rfind("\n", 0, start) + 1
    end = text.find("\n", line_start)
    return line_start, len(text) if end < 0 else end


def _blank_before(text: str, line_start: int) -> bool:
    if line_start == 0:
        return True
    previous = text.rfind("\n", 0, line_start - 1) + 1
    return not text[previous:line_start - 1].strip()


def _next_line(text: str, line_end: int) -> tuple[int, int] | None:
    if line_end >= len(text):
        return None
    start = line_end + 1
    end = text.find("\n", start)
    return start, len(text) if end < 0 else end


def stands_alone(text: str, line_start: int, line_end: int, *, title_may_follow: bool = False) -> bool:
    """A blank line (or the text's edge) before and after the line; with ``title_may_follow``,
    one short line may follow before the blank (``1`` then ``The Old Sea-dog``)."""
    if not _blank_before(text, line_start):
        return False
    following = _next_line(text, line_end)
    if following is None or not text[following[0]:following[1]].strip():
        return True
    if not title_may_follow or len(text[following[0]:following[1]].split()) > 14:
        return False
    after = _next_line(text, following[1])
    return after is None or not text[after[0]:after[1]].strip()


def runs_on(text: str, line_end: int, title: str) -> bool:
    """A titled line that opens a paragraph of running text (three lines or more), or whose title
    ends without punctuation on a long next line: a sentence, not a heading ("BOOK I. (Folio),
    CHAPTER I. This whale, among the ..."). A two-line heading whose title wraps (``CHAPTER 56.
    Of the Less Erroneous Pictures of Whales, and the True`` / ``Pictures of Whaling Scenes.``)
    does not run on."""
    following = _next_line(text, line_end)
    if not title.strip() or following is None or not text[following[0]:following[1]].strip():
        return False
    after = _next_line(text, following[1])
    if after is not None and text[after[0]:after[1]].strip():
        return True
    return len(text[following[0]:following[1]].split()) > 12


def wrapped_title(text: str, line_end: int, title: str) -> tuple[str, int] | None:
    """The rest of a heading's title wrapped onto the next line (then a blank line), with the
    offset after it; None when the title does not wrap."""
    following = _next_line(text, line_end)
    if (not title.strip() or re.search(r"[.!?)\]”\"’]$", title.strip()) or following is None
            or not text[following[0]:following[1]].strip()):
        return None
    after = _next_line(text, following[1])
    if after is not None and text[after[0]:after[1]].strip():
        return None
    rest = text[following[0]:following[1]].strip()
    return (rest, following[1]) if len(rest.split()) <= 12 else None


def mid_paragraph(text: str, line_start: int) -> bool:
    """The line before is text (not blank): the line continues a paragraph."""
    return not _blank_before(text, line_start)


def reads_like_sentence(title: str) -> bool:
    """A title too long, or with a sentence break inside (abbreviations and initials aside)."""
    title = title.strip().strip("*_")
    if len(title.split()) > 14 or title.endswith((",", ";")):
        return True
    return _SENTENCE_BREAK.search(_INITIALS.sub("X", title)) is not None


def mask_illustrations(text: str) -> str:
    """``text`` with every ``[Illustration: ...]`` block blanked (same length, newlines kept), so
    no caption line or closing bracket is read as a heading. A chapter heading printed as the
    caption's last line (Pride and Prejudice's ``Chapter I.]``, its only "Chapter I") is kept,
    without the bracket."""
    if "[Illustration" not in text and "[illustration" not in text.lower():
        return text
    keyword = FORMS[1].pattern
    pieces: list[str] = []
    last = 0
    for m in _ILLUSTRATION.finditer(text):
        pieces.append(text[last:m.start()])
        lines = m.group().split("\n")
        kept = []
        for k, line in enumerate(lines):
            bare = line[:-1] + " " if k == len(lines) - 1 and k > 0 and line.endswith("]") else ""
            kept.append(bare if bare and keyword.match(bare.rstrip()) else re.sub(r"\S", " ", line))
        pieces.append("\n".join(kept))
        last = m.end()
    pieces.append(text[last:])
    return "".join(pieces)


__all__ = ["FORMS", "LEADERS", "Candidate", "Form", "heading_key", "line_bounds", "mask_illustrations", "number_of",
           "mid_paragraph", "reads_like_sentence", "runs_on", "spaced", "stands_alone", "wrapped_title"]
