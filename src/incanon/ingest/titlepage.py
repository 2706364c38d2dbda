"""A book's title and author from its title page: the first lines, before the first heading.

Most copies of public-domain books carry no metadata, but open as the printed book did::

    THE STRANGE CASE OF DR. JEKYLL AND MR. HYDE

    by Robert Louis Stevenson

Recognised: a short title (one to three lines; ``MOBY-DICK;`` / ``or, THE WHALE.`` joined, a
subtitle on a line of its own dropped) followed by a ``by NAME`` line (or ``by`` / ``NAME``,
``_by_``), or, without a "by", a title line followed by a name line (``ALICE'S ADVENTURES IN
WONDERLAND`` / ``Lewis Carroll``). Production credits (``Produced by ...``), bracketed notes and
illustration captions are skipped. ALL-CAPS titles come back in title case.
"""

from __future__ import annotations

import re

from incanon.ingest.heading_forms import FORMS, mask_illustrations

_CREDIT = re.compile(r"^(?:produced|prepared|transcribed|scanned|proofread|this\s+e-?text|e-?text|html|an\s+anonymous)"
                     r"|\b(?:prepared|produced|transcribed)\s+by\b|gutenberg|https?://|www\.", re.I)
# "by" in the languages of Gutenberg's shelves (Dutch door, German von, French par, Spanish and
# Portuguese por, Swedish av, Danish af, Italian di, de): alone on its line, the name on the next
# line, or followed by the name on the same line. The short words (de, di, af, av) are prose
# words too: they take a name on their line only when it reads as a name.
_BY = re.compile(r"^[_*]*(?P<word>by|door|von|par|por|av|af|di|de)[_*]*(?:\s+(?P<name>.+?))?[.,]?$", re.I)
_SHORT_BY = {"de", "di", "af", "av"}
# A line holding only the word for "or" between a title and its alternative title ("GOEDE VAÊR
# TROMP," / "OF" / "HOE DE VEREENIGDE PROVINCIËN...").
_OR = re.compile(r"^(?:or|of|oder|ou|o|eller)[,.]?$", re.I)
# Chinese and Japanese: 《红楼梦》曹雪芹; a name followed by 著 / 撰 / 作 / 编, or after 作者：.
_CJK_TITLE = re.compile(r"^[《〈「『](?P<title>[^》〉」』]{1,40})[》〉」』][\s　]*(?P<author>[^\n]{0,30})$")
_CJK_AUTHOR = re.compile(r"^(?:作者|著者)[:：\s　]*(?P<a>[^\n]{1,30})$|^(?:[\[［【(（〔][^\]］】)）〕]{1,4}[\]］】)）〕])?"
                         r"[\s　]*(?P<b>[^\s　]{1,12}?)[\s　]*(?:著|撰|作|編|编|原著|著作)$")
_NAME = re.compile(r"^(?:[A-Z][a-z’']+\.?|[A-Z]\.)(?:[ ](?:[A-Z][a-z’']+\.?|[A-Z]\.|de|van|von|of|la|le)){1,4}$")
# "Edited by", "Herausgegeben von": the name under the title is not the author's.
_NOT_AUTHOR = re.compile(r"\b(?:edited|editor|translated|translator|illustrated|introduction|preface|herausgegeben|"
                         r"übersetzt|traduit)\b", re.I)
_SMALL = {"a", "an", "and", "as", "at", "but", "by", "for", "from", "in", "into", "nor", "of", "on", "or", "the", "to",
          "with"}
MAX_LINES = 14
"""Non-blank lines of the text searched for a title page."""


def _lines(head: str) -> list[tuple[str, int]]:
    """The first non-blank lines as (line, blank lines before it), credits and notes skipped."""
    out: list[tuple[str, int]] = []
    blanks, skipping = 0, False
    for raw in head.split("\n"):
        line = raw.strip()
        if not line:
            blanks, skipping = blanks + 1, False
            continue
        if skipping or _CREDIT.search(line) or line.startswith(("[", "![", "<")):
            skipping = True  # a credit's paragraph goes on over its lines
            continue
        out.append((line, blanks))
        blanks = 0
        if len(out) >= MAX_LINES:
            break
    return out


def title_case(text: str, *, first: bool = True) -> str:
    """``text`` in title case when it is written in capitals, else as it is."""
    letters = [c for c in text if c.isalpha()]
    if not letters or sum(c.isupper() for c in letters) < 0.8 * len(letters):
        return text
    words = []
    for k, word in enumerate(text.lower().split(" ")):
        if (k > 0 or not first) and re.sub(r"\W", "", word) in _SMALL:
            words.append(word)
        else:
            words.append("-".join(re.sub(r"^(\W*)(\w)", lambda m: m.group(1) + m.group(2).upper(), part)
                                  for part in word.split("-")))
    return " ".join(words)


def _join_title(block: list[tuple[str, int]]) -> str:
    """The title from its lines: lines of one paragraph, and a line that goes on after ``;``
    ``:`` ``,`` or starts lower case (``or, the Whale``), are joined; a subtitle is dropped."""
    parts: list[str] = []
    for k, (line, blanks) in enumerate(block):
        if line.endswith(".") and not re.search(r"\b(?:mr|mrs|dr|st|jr|sr|[a-z])\.$", line, re.I):
            line = line[:-1]  # "PRIDE." / "and" / "PREJUDICE"
        if parts and parts[-1].lower() == line.lower():
            continue  # the title set twice (a half-title, then the title page)
        if parts and blanks and not (parts[-1].endswith((";", ":", ",")) or line[:1].islower()
                                     or line.lower().startswith("or,")):
            break
        parts.append(title_case(line, first=not parts))
    return " ".join(parts).strip(" .;:,_*")


def _title_before(lines: list[tuple[str, int]], index: int) -> str:
    """The title in the (at most three) lines before ``lines[index]``, close above it."""
    block: list[tuple[str, int]] = []
    k = index - 1
    while k >= 0 and len(block) < 3 and len(lines[k][0]) <= 80:
        block.insert(0, lines[k])
        if lines[k][1] > 3:
            break
        k -= 1
    return _join_title(block) if block else ""


def _cjk_author(line: str) -> str:
    """The author named by a Chinese or Japanese credit line (``曹雪芹 著``, ``作者：曹雪芹``)."""
    m = _CJK_AUTHOR.match(line.strip())
    return (m.group("a") or m.group("b") or "").strip() if m else ""


def _cjk_title_page(lines: list[tuple[str, int]]) -> tuple[str, str]:
    """(title, author) of a Chinese or Japanese title page: ``《红楼梦》曹雪芹``, or a title line
    and a credit line (``红楼梦`` / ``曹雪芹 著``)."""
    if not lines:
        return "", ""
    first = lines[0][0]
    m = _CJK_TITLE.match(first)
    if m:
        author = _cjk_author(m.group("author")) or m.group("author").strip()
        if not author and len(lines) > 1:
            author = _cjk_author(lines[1][0])
        return m.group("title").strip(), author
    if len(lines) > 1 and len(first) <= 30 and not re.search(r"[，。．！？：；]", first):
        author = _cjk_author(lines[1][0])
        if author:
            return first.strip("《》 　"), author
    return "", ""


def find_title_page(text: str) -> tuple[str, str]:
    """(title, author) from the title page at the start of ``text`` (pass the text before the
    first heading); ("", "") when there is none."""
    lines = _lines(mask_illustrations(text[:5000]))
    title, author = _cjk_title_page(lines[:3])
    if title:
        return title, author
    for i, (line, blanks) in enumerate(lines):
        by = _BY.match(line)
        if by and by.group("word").lower() in _SHORT_BY and by.group("name") and not _NAME.match(
                by.group("name").strip(" _*,.")):
            continue  # "de wind stak op": a sentence, not a credit
        if by and i > 0 and blanks <= 4:
            name = by.group("name") or (lines[i + 1][0] if i + 1 < len(lines) and lines[i + 1][1] <= 3 else "")
            alternative = next((j for j in range(i - 1, max(0, i - 8) - 1, -1) if _OR.match(lines[j][0])), None)
            title = _title_before(lines, alternative if alternative else i)
            name = name.strip(" _*,.")
            if title and name and len(name) <= 80 and not _NOT_AUTHOR.search(name):
                return title, title_case(name)
            return "", ""
    matter = FORMS[0].pattern
    if (len(lines) >= 2 and lines[1][1] <= 3 and _NAME.match(lines[1][0]) and len(lines[0][0]) <= 80
            and not matter.match(lines[0][0]) and not matter.match(lines[1][0]) and not _NOT_AUTHOR.search(lines[1][0])):
        title = _join_title(lines[:1])
        if title and not re.search(r"[.!?]\s", title):
            return title, lines[1][0]
    return "", ""


__all__ = ["find_title_page", "title_case"]
