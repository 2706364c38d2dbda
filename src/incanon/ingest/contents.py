"""A book's contents list: where it is (so its entries are never chapters), and whether the
chapters found agree with it.

A contents list starts at a ``CONTENTS`` line and runs to where the story's own headings begin:
the first heading listed, found a second time (``CHAPTER 1. Loomings.`` in the list, then again
before the text), or failing that the first heading followed by prose, with the part heading
just before it. Everything in between (the entries, and front matter such as Moby-Dick's
*Etymology* and *Extracts*) is not a chapter.

Its entries (page numbers and dotted leaders dropped, wrapped lines joined) are then compared
with the chapters found, by title and else by number, and the reader notes where they disagree.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from typing import Sequence

from incanon.ingest.heading_forms import CONTENTS_WORDS, FORMS, Candidate, number_of

_S = r"[^\S\n]"
_TRAILER = re.compile(rf"(?:{_S}*\.){{2,}}{_S}*\d*{_S}*$|{_S}{{2,}}[\divxlc]+{_S}*$", re.I)
_LEAD_NUMBER = re.compile(
    rf"^{_S}*(?:(?P<word>chapter|chap\.?|letter|adventure|stave|scene){_S}+)?(?P<num>\d{{1,6}}|[ivxlcdm]{{1,8}}|"
    r"one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|first|second|third)\b[.:]?", re.I)
_PART_ENTRY = re.compile(
    rf"^{_S}*(?:part|book|volume|vol\.|act|(?:first|second|third|fourth|fifth|final|last){_S}+epilogue)\b", re.I)
_NAMED_ENTRY = re.compile(r"^\W*(?:prologue|epilogue|interlude|afterword|foreword)\b", re.I)
_MATTER = FORMS[0].pattern
_BARE = ("bare", "cjk-bare")
_CONTENTS_LINE = re.compile(rf"content|{CONTENTS_WORDS}", re.I)
_WORDS = {"chap": "chapter", "chap.": "chapter", "num": "chapter"}
MAX_LISTS = 8
"""Contents lists looked for in one text (a book in volumes has one per volume)."""
MIN_PROSE_WORDS = 40
"""Words after a heading that make it a chapter of the story rather than an entry of the list."""


@dataclass(frozen=True)
class Contents:
    """A contents list: ``start`` (its ``CONTENTS`` line) to ``end`` (the story's first heading)."""

    start: int
    end: int
    entries: tuple[str, ...]
    """The list's entries, page numbers and leaders dropped."""


def _words_between(text: str, start: int, end: int) -> int:
    return len(text[start:end].split())


def _part_just_before(text: str, after: Sequence[Candidate], j: int) -> int:
    """Index of the part heading right before ``after[j]`` (nothing but a title between), else ``j``."""
    if j > 0 and after[j - 1].kind == "part" and _words_between(text, after[j - 1].end, after[j].start) <= 12:
        if not any(c.key == after[j - 1].key for c in after[:j - 1]):
            return j - 1
    return j


def _region_end(text: str, after: Sequence[Candidate]) -> int | None:
    """Index in ``after`` of the story's first heading (see the module docstring), or None."""
    first = after[0]
    if first.key[1]:
        # The same heading in the same form: "I." (a story's first section) is not the entry
        # "I. THE RED LAMP" found again.
        j = next((j for j in range(1, len(after)) if after[j].key == first.key
                  and (after[j].form.name not in _BARE or first.form.name in _BARE)), None)
        # Only a list if its entries are short (the last may be followed by front matter): a
        # real "Chapter 1" found again as part 2's "Chapter 1" must not swallow part 1.
        if j is not None and all(_words_between(text, after[k].end, after[k + 1].start) < MIN_PROSE_WORDS
                                 for k in range(j - 1)):
            return _part_just_before(text, after, j)
    for j, cand in enumerate(after):
        end = after[j + 1].start if j + 1 < len(after) else len(text)
        if cand.kind == "chapter" and _words_between(text, cand.end, end) >= MIN_PROSE_WORDS:
            k = j
            # A part heading, or a story's own heading (not listed again later) right before its
            # first section ("I. THE RED LAMP" then "I."), begins the story with it.
            while k > 0 and _words_between(text, after[k - 1].end, after[k].start) <= 12 and (
                    after[k - 1].kind == "part" or not _listed_again(after, k - 1)):
                k -= 1
            return k
    return None


def _listed_again(after: Sequence[Candidate], i: int) -> bool:
    """Whether the heading ``after[i]`` comes again later (not as a bare section numeral): a
    list's entry does."""
    cand = after[i]
    return any(c.key == cand.key and (c.form.name not in _BARE or cand.form.name in _BARE) for c in after[i + 1:])


def find_contents(text: str, cands: Sequence[Candidate]) -> list[Contents]:
    """Every contents list of ``text`` given its heading candidates (in text order)."""
    found: list[Contents] = []
    heads = [i for i, c in enumerate(cands) if c.kind == "matter" and _CONTENTS_LINE.search(c.line)]
    for i in heads[:MAX_LISTS]:  # each costs a pass over the headings: a bound for hostile text
        cand = cands[i]
        if found and cand.start < found[-1].end:
            continue
        after = [c for c in cands[i + 1:] if c.kind in ("chapter", "part")]
        j = _region_end(text, after) if after else None
        if j is None:
            continue
        entries = contents_entries(text, cand.end, after[j].start)
        if j > 0 or len(entries) >= 2:  # j == 0: the list holds no heading line, only entries
            found.append(Contents(cand.start, after[j].start, tuple(entries)))
    return found


def _prose(lines: list[str]) -> bool:
    """A block of running text (the list is over): three or more long lines without page numbers."""
    return (len(lines) >= 3 and sum(len(line.strip()) for line in lines) / len(lines) >= 55
            and not any(re.search(r"\d\s*$", line) for line in lines))


def contents_entries(text: str, start: int, end: int) -> list[str]:
    """The entries of the contents list between ``start`` and ``end``: one per listed chapter or
    part, wrapped lines joined, page numbers and dotted leaders dropped."""
    entries: list[str] = []
    indents: list[int] = []
    for block in re.split(rf"\n{_S}*\n", text[start:end]):
        lines = [line for line in block.split("\n") if line.strip()]
        if not lines:
            continue
        if _prose(lines):
            break
        for k, line in enumerate(lines):
            entry = _TRAILER.sub("", line).strip()
            if re.fullmatch(r"(?i)(?:chapter|letter|book|part|act|scene)\.?", entry):
                entry = line.strip()  # "CHAPTER    IV": the numeral is the entry's, not a page number
            if not entry or entry.lower() in ("page", "pages", "chapter") or _MATTER.match(entry):
                continue
            if entries and not _starts_entry(entry) and _continues(entries[-1], entry, line, indents[-1], k > 0):
                entries[-1] = f"{entries[-1]} {entry}"  # a wrapped entry, or the title of "CHAPTER I"
                continue
            entries.append(entry)
            indents.append(len(line) - len(line.lstrip()))
    if any(_LEAD_NUMBER.match(e) for e in entries):
        while entries and not _starts_entry(entries[-1]):
            entries.pop()  # the book's title repeated after the list, before its first part
    return entries


def _starts_entry(entry: str) -> bool:
    return any(p.match(entry) for p in (_LEAD_NUMBER, _PART_ENTRY, _NAMED_ENTRY))


def _continues(previous: str, entry: str, line: str, indent: int, same_block: bool) -> bool:
    """Whether ``entry`` (an unnumbered line) goes on the entry before it: more indented, starting
    lower case, the title of a bare "CHAPTER I" or of a part, or a title wrapped mid-phrase."""
    if len(line) - len(line.lstrip()) > indent or entry[:1].islower() or not _title_words(previous):
        return True
    return same_block and (_PART_ENTRY.match(previous) is not None
                           or (_LEAD_NUMBER.match(previous) is not None and not re.search(r"[.!?”\"]$", previous)))


def _title_words(entry: str) -> tuple[str, ...]:
    rest = entry
    m = _LEAD_NUMBER.match(entry)
    if m:
        rest = entry[m.end():]
    return tuple(re.sub(r"[^\w\s]", " ", rest.lower().replace("’", "'").replace("'", "")).split())


def _number_key(line: str, part: int) -> tuple[str, int, int] | None:
    m = _LEAD_NUMBER.match(line.strip(" #*_"))
    if not m:
        return None
    value = number_of(m.group("num"))
    word = (m.group("word") or "num").lower()
    return (_WORDS.get(word, word), part, value) if value is not None else None


@dataclass(frozen=True)
class _Item:
    label: str
    title: tuple[str, ...]
    number: tuple[str, int, int] | None


def _match(listed: list[_Item], found: list[_Item]) -> tuple[list[int], list[int]]:
    """Indexes of ``listed`` and of ``found`` left unmatched. Matched in passes, surest first:
    same title and number, same title, one title a prefix of the other, same number (Dracula
    lists nine "Dr. Seward's Diary": the numbers say which is which)."""
    used: set[int] = set()
    index: dict[object, list[int]] = defaultdict(list)
    for k, item in enumerate(found):
        index[("both", item.title, item.number)].append(k)
        index[("title", item.title)].append(k)
        index[("start", item.title[:2])].append(k)
        index[("number", item.number)].append(k)

    def prefix(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
        return min(len(a), len(b)) >= 2 and (b[:len(a)] == a or a[:len(b)] == b)

    def loose(a: _Item, b: _Item) -> bool:  # same number, titles compatible or one of them untitled
        return not a.title or not b.title or prefix(a.title, b.title)

    passes = ((lambda i: ("both", i.title, i.number) if i.title and i.number else None, None),
              (lambda i: ("number", i.number) if i.number else None, loose),
              (lambda i: ("title", i.title) if i.title else None, None),
              (lambda i: ("start", i.title[:2]) if len(i.title) >= 2 else None,
               lambda a, b: prefix(a.title, b.title)),
              (lambda i: ("number", i.number) if i.number else None, None))
    left = list(range(len(listed)))
    for key_of, fits in passes:
        still = []
        for i in left:
            key = key_of(listed[i])
            pool = index.get(key, []) if key is not None else []
            k = next((k for k in pool if k not in used and (fits is None or fits(listed[i], found[k]))), None)
            if k is None:
                still.append(i)
            else:
                used.add(k)
        left = still
    return left, [k for k in range(len(found)) if k not in used]


def contents_note(contents: Contents, chapters: Sequence[tuple[int, int, str, str]]) -> str | None:
    """A note comparing the list's entries with ``chapters`` (book, number, title, heading line):
    that they agree, or which entries were not found and which chapters are not listed."""
    has_parts = any(_PART_ENTRY.match(e) for e in contents.entries)
    listed: list[_Item] = []
    part = 0
    numbered = any(_LEAD_NUMBER.match(e) for e in contents.entries)
    for entry in contents.entries:
        if _PART_ENTRY.match(entry):
            part += 1
            continue
        if numbered and not listed and not _starts_entry(entry):
            continue  # unnumbered entries before the first chapter: front matter (Etymology, Preface)
        listed.append(_Item(entry, _title_words(entry), _number_key(entry, part if has_parts else 0)))
    if len(listed) < 2:
        return None
    found = [_Item(f"{b}-{n} {title}", _title_words(title), _number_key(heading, b if has_parts else 0))
             for b, n, title, heading in chapters]
    missing, unlisted = _match(listed, found)
    if not missing and not unlisted:
        return f"contents list: its {len(listed)} entries match the chapters found"

    def some(labels: list[str]) -> str:
        shown = ", ".join(repr(label[:60]) for label in labels[:5])
        return shown + (f" and {len(labels) - 5} more" if len(labels) > 5 else "")

    parts = []
    if missing:
        parts.append(f"listed but not found as a heading: {some([listed[i].label for i in missing])}")
    if unlisted:
        parts.append(f"found but not listed: {some([found[k].label for k in unlisted])}")
    return (f"contents list ({len(listed)} entries) and the {len(found)} chapters found disagree: "
            + "; ".join(parts))


__all__ = ["Contents", "contents_entries", "contents_note", "find_contents"]
