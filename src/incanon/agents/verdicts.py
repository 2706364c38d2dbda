"""Reading what narrative experts decided, from free model text.

Models wander: "Book 2, Chapter 5", "2-5", "chapter five of book two", "Book II ch. 5", a title
instead of a number, the verdict repeated, "not present" for absent. These parsers read from
the end (the final line wins over positions quoted in the reasoning) and return ``None``
rather than guess.

Story time is first-class: a period the expert names is compared with the character's
position by ``is_later``; the expert's own past/future word is read too, but only decides when
no period could be read.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from incanon.canon.position import Axis, Position
from incanon.errors import InputError

_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20,
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10,
}
_ROMAN = {"i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6, "vii": 7, "viii": 8, "ix": 9, "x": 10}
_N = r"(\d{1,4}|" + "|".join(sorted(_WORDS, key=len, reverse=True)) + r"|(?:ix|iv|x|vi{0,3}|i{1,3})\b)"
_BOOK = r"(?:book|volume|vol\.?|part)"
_CHAP = r"(?:chapter|chap\.?|ch\.?)"
_SCENE = r"(?:scene|sc\.?)"

# Ordered: the most specific forms first, so "book 2 chapter 5" is not read as bare "2".
_PATTERNS: list[tuple[re.Pattern[str], tuple[str, ...]]] = [
    (re.compile(rf"\b{_BOOK}\s*{_N}\W{{0,4}}{_CHAP}\s*{_N}(?:\W{{0,4}}{_SCENE}\s*{_N})?", re.I),
     ("b", "c", "s")),
    (re.compile(rf"\b{_CHAP}\s*{_N}\s*(?:of|in|,)\s*(?:the\s+)?{_BOOK}\s*{_N}", re.I), ("c", "b")),
    (re.compile(r"(?<![\d-])(\d{1,4})\s*-\s*(\d{1,4})(?:\s*-\s*(\d{1,4}))?(?![\d-])"), ("b", "c", "s")),
    (re.compile(rf"\bb\s*(\d{{1,4}})\s*[-,/ ]\s*c\s*(\d{{1,4}})", re.I), ("b", "c")),
]
_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_LABELLED = re.compile(r"(?im)^\W*(?:position|period|location in the story|answer|output)\W*[:=-]\s*(.+)$")


def _number(token: str | None) -> int | None:
    if token is None or token == "":
        return None
    t = token.lower().strip(".")
    if t.isdigit():
        return int(t)
    return _WORDS.get(t, _ROMAN.get(t))


def _scan(text: str, axis: Axis, books: Mapping[str, str]) -> Position | None:
    """The last position written in ``text`` (None if there is none)."""
    if axis is Axis.DATE:
        found = list(_DATE.finditer(text))
        for m in reversed(found):
            try:
                return Position.parse(m.group(0))
            except InputError:
                continue
        return None
    best: tuple[int, Position] | None = None
    for pattern, order in _PATTERNS:
        for m in pattern.finditer(text):
            parts = dict(zip(order, (_number(g) for g in m.groups())))
            book, chapter, scene = parts.get("b"), parts.get("c"), parts.get("s")
            if book is None or chapter is None:
                continue
            try:
                pos = Position.chapter_pos(book, chapter, scene)
            except InputError:
                continue
            # Later in the text wins; at the same end offset the earlier (richer) pattern wins.
            if best is None or m.end() > best[0]:
                best = (m.end(), pos)
    if best is not None:
        return best[1]
    return _by_title(text, books)


def _by_title(text: str, books: Mapping[str, str]) -> Position | None:
    """"Chapter 5 of The Storm" when the book is named by its title."""
    for number, title in sorted(books.items(), key=lambda kv: -len(kv[1])):
        if not title.strip() or not str(number).isdigit():
            continue
        t = re.escape(title.strip())
        m = re.search(rf"{t}\W{{0,6}}{_CHAP}\s*{_N}|{_CHAP}\s*{_N}\s*(?:of|in)\s*(?:the\s+)?(?:book\s+)?\W?{t}",
                      text, re.I)
        if m:
            chapter = _number(m.group(1) or m.group(2))
            if chapter is not None:
                try:
                    return Position.chapter_pos(int(number), chapter)
                except InputError:
                    return None
    return None


def parse_period(text: str, axis: Axis, books: Mapping[str, str] | None = None) -> Position | None:
    """The story position a temporal expert named, or None.

    A labelled line (``Position: ...``) wins; otherwise the last position anywhere in the text.
    """
    books = books or {}
    for m in reversed(list(_LABELLED.finditer(text))):
        found = _scan(m.group(1), axis, books)
        if found is not None:
            return found
    return _scan(text, axis, books)


_LEVEL_WORD = r"(?:volume|vol\.?|book|part|chapter|chap\.?|ch\.?)"


def parse_levels(text: str, depth: int) -> Position | None:
    """A period at exactly ``depth`` levels (``volume 1 - book 1 - chapter 11`` → ``1-1-11``).

    As the authors' ``extract_and_format_number``: the numbers of the final non-empty line,
    used only when there are exactly ``depth`` of them. When the final line has none (or too
    many), a labelled ``Position:`` line, then the last ``L - M - N`` group written with level
    words or dashes anywhere, from the end. Roman volume numbers are read too.
    """
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]

    def numbers_of(line: str) -> list[int]:
        out = []
        for token in re.findall(rf"\b{_LEVEL_WORD}\s*([ivx]+|\d+)\b|(\d+)", line, re.I):
            value = _number(token[0] or token[1])
            if value is not None:
                out.append(value)
        return out

    def build(values: list[int]) -> Position | None:
        try:
            return Position.chapter_pos(*values) if len(values) == depth and 2 <= depth <= 3 else None
        except InputError:
            return None

    candidates = lines[-1:] + [m.group(1) for m in reversed(list(_LABELLED.finditer(text)))]
    for line in candidates:
        found = build(numbers_of(line))
        if found is not None:
            return found
    group = rf"(?:{_LEVEL_WORD}\s*)?([ivx]+|\d+)"
    pattern = re.compile(r"\W{0,4}".join([rf"\b{group}"] * depth) + r"(?!\s*-\s*\d)", re.I)
    for line in reversed(lines):
        for m in reversed(list(pattern.finditer(line))):
            values = [_number(g) for g in m.groups()]
            if all(v is not None for v in values):
                found = build([v for v in values if v is not None])
                if found is not None:
                    return found
    return None


def is_later(period: Position, at: Position) -> bool:
    """True when ``period`` lies strictly after the character's position ``at``.

    Compared at the granularity the expert gave: an expert naming chapter ``2-5`` is not
    saying "the end of chapter 5", so a character at ``2-5-3`` is treated as being in that
    chapter (past, as in TimeChara, where only a strictly later chapter is future).
    """
    if period.axis is Axis.CHAPTER and at.axis is Axis.CHAPTER:
        if period.chapter is None:
            at = Position(Axis.CHAPTER, book=at.book)
        elif period.scene is None and at.chapter is not None:
            at = Position(Axis.CHAPTER, book=at.book, chapter=at.chapter)
    return period > at


_RELATIVE_LINE = re.compile(r"(?im)^\W*(?:relative|timing|time|status|verdict|answer)\W*[:=-]\s*(.+)$")
_RELATIVE_WORD = re.compile(r"\b(future|past)\b", re.I)


def _last_unambiguous(lines: list[str], read: Callable[[str], set[str]]) -> str | None:
    """The single kind of word the last line that has one names; a line naming both kinds
    (a parroted "past or future") is skipped."""
    for line in reversed(lines):
        kinds = read(line)
        if len(kinds) == 1:
            return kinds.pop()
    return None


def _relative_kinds(line: str) -> set[str]:
    return {w.lower() for w in _RELATIVE_WORD.findall(line)}


def parse_relative(text: str) -> str | None:
    """The expert's own word, ``"future"`` or ``"past"`` (a labelled line first, then the
    last line that names one), or None."""
    labelled = [m.group(1) for m in _RELATIVE_LINE.finditer(text)]
    return _last_unambiguous(labelled, _relative_kinds) or _last_unambiguous(text.splitlines(), _relative_kinds)


_PRESENCE = re.compile(
    r"\b(not\s+(?:a\s+)?(?:present|participant|there)|wasn'?t\s+(?:present|there)|"
    r"was\s+not\s+(?:present|there)|absent|present|participant)\b",
    re.I,
)
_VERDICT_LINE = re.compile(r"(?im)^\W*(?:verdict|answer|output|classification|result)\W*[:=-]\s*(.+)$")


def _presence_kinds(segment: str) -> set[str]:
    kinds = set()
    for hit in _PRESENCE.findall(segment):
        word = hit.lower()
        kinds.add("absent" if word == "absent" or "not" in word or "n't" in word else "present")
    return kinds


def parse_presence(text: str) -> str | None:
    """``"present"`` or ``"absent"`` from a spatial expert's output (a labelled line first,
    then the last line that says one), or None."""
    labelled = [m.group(1) for m in _VERDICT_LINE.finditer(text)]
    return _last_unambiguous(labelled, _presence_kinds) or _last_unambiguous(text.splitlines(), _presence_kinds)
