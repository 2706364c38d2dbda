"""One chapter detector for every reader of books: headings found by regular expressions.

Used by ``canon build``, ``coser curate`` (its chunking) and ``timechara build --book`` (plain
text and Gutenberg books). Headings recognised (one line, optionally markdown ``#``-prefixed,
optionally bold; the forms are in :mod:`incanon.ingest.heading_forms`):

* ``Chapter 12``, ``CHAPTER XII``, ``Chapter Twelve: The Fall``, ``Chap. 3``, ``Chapter 10000``,
  ``Letter 4``, ``ADVENTURE I. A SCANDAL IN BOHEMIA``, ``Stave One``
* ``Part 2``, ``PART II``, ``Book One``, ``FIRST EPILOGUE`` (a part: it does not count as a chapter)
* ``CHAPTER 1  The Period  It was...`` (a heading run into its first paragraph)
* plays: ``Act I`` / ``ACT ONE`` (a part), ``Scene 2`` (a chapter)
* a bare number or roman numeral: ``12``, ``12.``, ``XII`` (its title may be the next line)
* ``12. The Fall`` / ``XII. The Fall``
* ``Prologue``, ``Epilogue``, ``Interlude``, ``Afterword``
* titled: a markdown heading ``## The Fall``, or a short ALL-CAPS line between blank lines
  (``SEARCH FOR MR. HYDE``: abbreviations allowed, a sentence not)

Whitespace inside a heading may be any Unicode space (Project Gutenberg writes
``Chapter\\xa01.``). The weak forms (bare numbers, ``12. Title``, ``Prologue``, ALL-CAPS lines)
must stand as a paragraph of their own and not read as a sentence. Lines of an
``[Illustration: ...]`` block are never headings. When a book has named chapters (``CHAPTER
I``, ``ADVENTURE I. ...``), bare numerals restarting at ``I.`` under one are its sections.
Front and back matter (contents, preface, notes, index...) is not a chapter, and once back
matter follows the story (``ENDNOTES`` after the last chapter), the headings after it (the notes'
``Chapter 1`` ...) are not chapters either. A contents list (:mod:`incanon.ingest.contents`)
is never chapters, and the chapters found are compared with it.

Everything here is linear in the text's length: a 200,000-heading text is read in seconds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from incanon.ingest.contents import Contents, contents_note, find_contents
from incanon.ingest.heading_forms import (BACK_WORDS, FORMS, LEADERS, Candidate, heading_key, line_bounds,
                                          mask_illustrations, mid_paragraph, reads_like_sentence, runs_on, spaced,
                                          stands_alone, wrapped_title)
from incanon.ingest.scripts import describe_size, text_size

CHAPTER_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    ("titled" if f.name == "titled" else f.kind, f.pattern) for f in FORMS)
"""(kind, pattern) pairs; the first pattern matching a line decides its kind."""

_NAMED = {"keyword", "runin", "numbered", "markdown", "scene", "cjk"}
_NUMERALS = ("bare", "numbered", "cjk-bare")
_CJK_FORMS = ("cjk", "cjk-part", "cjk-volume")
_BACK_MATTER = re.compile(r"end\s*notes|notes|index|glossary|bibliography|acknowledge?ments?|about\s+the\s+author|"
                          rf"copyright|appendix|(?:original\s+)?transcriber[’']?s\s+notes?|{BACK_WORDS}", re.I)
# A Chinese title that holds a sentence end with more after it: prose, not a heading.
_CJK_SENTENCE = re.compile(r"[。！？．][^\n]")
#: A separator line (``-----``, ``* * *``, ``＝＝＝``): never a title, never a chapter's text.
SEPARATOR = re.compile(r"^[^\S\n]*(?:[-=_~*·•─━—－＝＊][^\S\n]*){3,}$", re.M)
DUPLICATE_WORDS = 12
"""Words between two headings of the same chapter number that make them one heading printed twice."""
MIN_TITLED_WORDS = 20
"""Words an ALL-CAPS titled chapter must hold; fewer is a title page or a caption."""


@dataclass(frozen=True)
class Heading:
    """A chapter or part heading found in the text."""

    start: int
    """Character offset of the heading line."""
    line: str
    kind: str
    """``chapter`` or ``part``."""
    number: int
    """Chapter ordinal in the book (1-based; parts take the number of the next chapter)."""
    title: str = ""
    """The title on the heading's own line (``The Fall`` of ``Chapter 2: The Fall``)."""
    form: str = ""
    """The form that matched (see :data:`incanon.ingest.heading_forms.FORMS`)."""
    key: tuple[str, object] = ("", None)
    end: int = 0
    """Offset of the heading line's end."""


@dataclass(frozen=True)
class TextChapter:
    """A chapter cut out of running text, numbered within its book (part or volume)."""

    book: int
    number: int
    title: str
    text: str
    line: int
    """1-based line of the heading in the text it was cut from (1 for a text without headings)."""
    heading: str = ""
    part: str = ""
    """The heading of the part (book, volume, act) the chapter is in, with its title (``PART
    ONE--The Old Buccaneer``, ``ACT II``); empty when there are none."""


@dataclass
class ChapterScan:
    """The chapters of a text and what the detector has to say about them."""

    headings: list[Heading]
    chapters: list[TextChapter]
    notes: list[str] = field(default_factory=list)
    contents: list[Contents] = field(default_factory=list)


def _candidates(text: str) -> list[Candidate]:
    """Every line a form accepts, in text order (the first form matching a line decides)."""
    masked = mask_illustrations(text)
    is_spaced = spaced(masked)
    found: dict[int, Candidate] = {}
    for form in FORMS:
        for m in form.pattern.finditer(masked):
            start, end = line_bounds(masked, m.start())
            if start in found:
                continue
            line = masked[start:end].strip()
            title = (m.groupdict().get("title") or "").strip()
            if line and _acceptable(masked, form.name, form.weak, form.kind, start, end, line, title, is_spaced):
                # A run-in heading's chapter starts on its own line, after the title.
                found[start] = Candidate(start, m.end() if form.name == "runin" else end, form, line, title,
                                         heading_key(form, m))
    cands = [found[k] for k in sorted(found)]
    if not is_spaced:
        return cands
    # In text whose paragraphs are separated by blank lines, a named heading does not continue a
    # paragraph (Hamlet's contents: "...A room in the Castle.\nScene III. A room in the Castle.").
    return [c for c in cands if c.form.weak or c.form.name in ("runin", "markdown", "matter") + _CJK_FORMS
            or not mid_paragraph(masked, c.start) or masked.rfind("\n", 0, c.start - 1) + 1 in found]


def _acceptable(text: str, name: str, weak: bool, kind: str, start: int, end: int, line: str, title: str,
                is_spaced: bool) -> bool:
    """Whether a matched line is a heading by the line-level rules of the module docstring."""
    if kind != "matter" and LEADERS.search(line):
        return False  # "ISRAEL HANDS . . . . 153": a contents entry
    if name == "titled":
        return 3 <= len(title) <= 60
    if name == "cjk-bare":  # a hard-wrapped line can leave one 一 alone: only a paragraph of its own
        return stands_alone(text, start, end)
    if name in _CJK_FORMS:
        # The pattern already wants a short title; one holding a sentence end is prose.
        return not _CJK_SENTENCE.search(title)
    if weak:
        if is_spaced and not stands_alone(text, start, end, title_may_follow=name == "bare"):
            return False
        return not (title and reads_like_sentence(title))
    # A run-in heading runs on by definition ("CHAPTER 1  The Period  It was the best of times"),
    # and a markdown heading is marked as one, its paragraph may follow on the next line.
    return not (kind != "matter" and name not in ("runin", "markdown") and is_spaced and runs_on(text, end, title))


def _words(text: str, start: int, end: int) -> int:
    """Size of ``text[start:end]`` in words (Chinese and Japanese counted by character:
    :func:`~incanon.ingest.scripts.text_size`)."""
    return text_size(text[start:end])


def _drop_sections(cands: list[Candidate]) -> tuple[list[Candidate], int]:
    """Numerals (``I.``, ``II. A Loose-Fish ...``) restarting at 1 under a named chapter and
    counting up in one form are its sections, not chapters; a numeral out of that sequence, or
    in another form (``III. THE LAST CASE`` after ``II.``), is a heading."""
    if sum(1 for c in cands if c.form.name in _NAMED) < 2:
        return cands, 0
    out: list[Candidate] = []
    state, form, expected, dropped = "", "", 0, 0  # state "named": after a named chapter; "sections": in its sections
    for c in cands:
        numeral = c.form.name in _NUMERALS
        if numeral and state == "named" and c.key[1] == 1:
            state, form, expected = "sections", c.form.name, 1
        if numeral and state == "sections" and c.key[1] == expected and c.form.name == form:
            dropped, expected = dropped + 1, expected + 1
            continue
        state = "named" if c.form.name in _NAMED else ""
        out.append(c)
    return out, dropped


def _select(text: str, cands: list[Candidate]) -> tuple[list[Candidate], list[Contents], int | None, int, int]:
    """The headings among ``cands``: (headings, contents lists, start of front matter, sections
    dropped, start of back matter or the text's length)."""
    contents = find_contents(text, cands)
    if contents:
        spans = iter(contents)
        span = next(spans, None)
        outside = []
        for c in cands:
            while span is not None and c.start >= span.end:
                span = next(spans, None)
            if span is None or c.start < span.start:
                outside.append(c)
        cands = outside
    if sum(1 for c in cands if c.kind == "chapter" and c.form.name != "titled") >= 3:
        cands = [c for c in cands if c.form.name != "titled"]
    cands, sections = _drop_sections(cands)
    last_seen: dict[str, int] = {}
    for i, c in enumerate(cands):
        last_seen[_norm(c.line)] = i
    kept: list[Candidate] = []
    front = contents[0].start if contents else None
    back = len(text)
    seen_chapter = False
    for i, c in enumerate(cands):
        if c.kind == "matter":
            if (seen_chapter and _BACK_MATTER.fullmatch(c.title.strip(" .:").lower())
                    and not _story_goes_on(cands, i, kept)):
                back = c.start
                break  # back matter after the story: the rest is notes, index...
            if not seen_chapter:
                front = c.start if front is None else min(front, c.start)
            continue
        following = cands[i + 1].start if i + 1 < len(cands) else len(text)
        if c.kind == "chapter" and last_seen[_norm(c.line)] > i and _words(text, c.end, following) <= 3:
            continue  # a table-of-contents entry: listed again later, nothing under it
        seen_chapter = seen_chapter or c.kind == "chapter"
        previous = kept[-1] if kept else None
        if (previous is not None and c.kind == "chapter" and previous.kind == "chapter" and c.key == previous.key
                and isinstance(c.key[1], int) and _words(text, previous.end, c.start) <= DUPLICATE_WORDS):
            # The same heading printed twice in a row (a title line, then the heading again): one
            # chapter, under the second, keeping a title only the first gave.
            kept[-1] = c if c.title or not previous.title else replace(c, title=previous.title)
            continue
        kept.append(c)
    if any(c.form.name == "titled" for c in kept):
        ends = [kept[i + 1].start if i + 1 < len(kept) else back for i in range(len(kept))]
        kept = [c for c, e in zip(kept, ends) if c.form.name != "titled" or _words(text, c.end, e) >= MIN_TITLED_WORDS]
    return kept, contents, front, sections, back


def _story_goes_on(cands: list[Candidate], i: int, kept: list[Candidate]) -> bool:
    """Whether the chapter numbering goes on after the matter heading ``cands[i]`` (an annotated
    edition's notes after every chapter): then it does not end the story."""
    last = next((c for c in reversed(kept) if c.kind == "chapter"), None)
    following = next((c for c in cands[i + 1:] if c.kind == "chapter"), None)
    return (last is not None and following is not None and following.key[0] == last.key[0]
            and isinstance(last.key[1], int) and following.key[1] == last.key[1] + 1)


def _norm(line: str) -> str:
    return " ".join(re.sub(r"[#*_]", " ", line).lower().split())


def _headings(kept: list[Candidate]) -> list[Heading]:
    headings: list[Heading] = []
    number = 0
    # A book divided only into parts (卷一, 卷二...; BOOK I, BOOK II): its parts are its chapters.
    parts_only = bool(kept) and all(c.kind == "part" for c in kept)
    for c in kept:
        if parts_only:
            c = replace(c, form=replace(c.form, kind="chapter"))
        if c.kind == "chapter":
            number += 1
        headings.append(Heading(c.start, c.line, c.kind, max(number, 1) if c.kind == "chapter" else number + 1,
                                c.title.strip(" *_#"), c.form.name, c.key, c.end))
    return headings


def find_headings(text: str) -> list[Heading]:
    """Every heading line, in order, numbered by chapter."""
    return _headings(_select(text, _candidates(text))[0])


def chapter_at(headings: list[Heading], offset: int) -> Heading | None:
    """The last chapter heading at or before ``offset``."""
    current = None
    for h in headings:
        if h.start > offset:
            break
        if h.kind == "chapter":
            current = h
    return current


def _title_after(text: str, end: int, limit: int) -> tuple[str, int, bool]:
    """A chapter title on a line after a bare heading (`` I.`` then `` Introduction``; ``第三回``,
    a line of dashes, then the title), before ``limit`` (the next heading): short, followed by a
    blank line. Returns (title, offset after it, plain): ``plain`` is False for a title that ends
    with a period, which :func:`scan_chapters` takes only when most chapters have such a line.
    ("", end, False) when there is none. Reads a bounded window: never the rest of the text."""
    lines = text[end:min(limit, end + 600)].split("\n")
    k = 1  # lines[0] is what is left of the heading's own line
    while k < len(lines) and k <= 8 and (not lines[k].strip() or SEPARATOR.fullmatch(lines[k])):
        k += 1
    blanks = sum(1 for line in lines[1:k] if not line.strip())
    if k >= len(lines) or k > 8 or blanks > 4:
        return "", end, False
    line = lines[k]
    title = line.strip()
    after = end + sum(len(x) + 1 for x in lines[:k]) + len(line)
    follows = lines[k + 1] if k + 1 < len(lines) else None
    quoted = re.fullmatch(r"[“\"‘'][^\n]*[^.!?,][”\"’']", title) is not None
    plain = title.strip("_*")
    if (not title or len(title.split()) > 14 or (plain.endswith((",", ";", ":", "—", "-", "，", "：", "；", "”", '"'))
                                                 and not quoted)
            or (follows is not None and follows.strip() and not SEPARATOR.fullmatch(follows) and after < limit)
            or reads_like_sentence(title.rstrip("."))):
        return "", end, False
    return title, after, not plain.endswith((".", "。", "．")) or quoted


def _trim(body: str) -> str:
    """``body`` without blank or separator lines at its start and end."""
    lines = body.strip().split("\n")
    while lines and (not lines[0].strip() or SEPARATOR.fullmatch(lines[0])):
        lines.pop(0)
    while lines and (not lines[-1].strip() or SEPARATOR.fullmatch(lines[-1])):
        lines.pop()
    return "\n".join(lines).strip()


def _titles_after(text: str, headings: list[Heading], ends: list[int]) -> dict[int, tuple[str, int]]:
    """The titles on the line after each untitled chapter heading, by heading index. A title
    ending with a period (``Een Winterdag op de Noordzee.``) is taken only when most of the book's
    untitled headings (three or more) have such a line: otherwise the line is the chapter's first
    sentence ("On my return, I found the following letter from my father:—" is not a title)."""
    found: dict[int, tuple[str, int, bool]] = {}
    untitled = 0
    for i, h in enumerate(headings):
        if h.kind != "chapter" or h.title:
            continue
        untitled += 1
        title, after, plain = _title_after(text, min(h.end or ends[i], ends[i]), ends[i])
        if title:
            found[i] = (title, after, plain)
    layout = untitled >= 3 and len(found) >= 0.6 * untitled
    return {i: (t, a) for i, (t, a, plain) in found.items() if plain or layout}


def _numbering_note(headings: list[Heading]) -> str | None:
    """Numbered chapters whose numbers jump (a heading missed or misread), within each part."""
    jumps: list[str] = []
    previous: Heading | None = None
    for h in headings:
        if h.kind == "part":
            previous = None
            continue
        value = h.key[1] if isinstance(h.key[1], int) else None
        if previous is not None and value is not None and previous.key[0] == h.key[0] and value not in (
                1, previous.key[1] + 1):  # type: ignore[operator]
            jumps.append(f"{previous.line[:40]!r} is followed by {h.line[:40]!r}")
        previous = h if value is not None else None
    if not jumps:
        return None
    more = f" (and {len(jumps) - 3} more)" if len(jumps) > 3 else ""
    return f"chapter numbers jump {len(jumps)} time(s), a heading missed or misread? " + "; ".join(jumps[:3]) + more


def scan_chapters(text: str, *, min_opening_words: int = 300) -> ChapterScan:
    """The chapters of ``text`` (see :func:`split_chapters`) with the detector's notes: front
    matter left out, sections that are not chapters, numbering that jumps, and how the
    chapters compare with the book's contents list."""
    kept, contents, front, sections, back = _select(text, _candidates(text))
    headings = _headings(kept)
    scan = ChapterScan(headings, [], contents=contents)
    if not headings:
        scan.chapters = [TextChapter(1, 1, "", text.strip(), 1)] if text.strip() else []
        return scan
    book, number, part_pending, part = 1, 0, False, ""
    opening_end = headings[0].start if front is None else min(front, headings[0].start)
    opening = text[:opening_end]
    if text_size(opening) >= min_opening_words:
        scan.chapters.append(TextChapter(1, 1, "", opening.strip(), 1))
        number = 1
    elif (left := _words(text, 0, headings[0].start)) >= min_opening_words:
        scan.notes.append(f"the {describe_size(text[:headings[0].start])} before the first chapter heading (title "
                          "page, contents, preface...) are front matter, not a chapter")
    ends = [headings[i + 1].start if i + 1 < len(headings) else back for i in range(len(headings))]
    after_titles = _titles_after(text, headings, ends)
    line_no, at = 1, 0
    lists = iter(contents)
    listed = next(lists, None)
    for i, h in enumerate(headings):
        line_no, at = line_no + text.count("\n", at, h.start), h.start
        end = headings[i + 1].start if i + 1 < len(headings) else back
        while listed is not None and listed.start < h.start:
            listed = next(lists, None)
        if listed is not None and listed.start < end:
            end = listed.start  # a contents list after a heading (a title page's): not the chapter's text
        line_end = min(h.end or end, end)
        if h.kind == "part":
            part_pending = True
            after = "" if h.title else _title_after(text, line_end, end)[0]
            part = " ".join(h.line.strip(" *_#").split()) + (f": {after}" if after else "")
            continue
        title, body_start = h.title, line_end
        wrapped = wrapped_title(text, line_end, title) if title and h.form in _NAMED - {"runin", "cjk"} else None
        if wrapped:
            title, body_start = f"{title} {wrapped[0]}", wrapped[1]
        if not title and i in after_titles:
            title, body_start = after_titles[i]
        body = _trim(text[body_start:end])
        if not body:
            continue
        if part_pending and number > 0:
            book, number = book + 1, 0
        part_pending = False
        number += 1
        scan.chapters.append(TextChapter(book, number, title or h.line.strip(" *_#"), body, line_no, h.line, part))
    if back < len(text) and (left := _words(text, back, len(text))):
        matter = text[back:text.find("\n", back) if "\n" in text[back:back + 200] else back + 40].strip()
        scan.notes.append(f"the {describe_size(text[back:])} from {matter!r} on are back matter after the story, "
                          "not a chapter")
    if sections:
        scan.notes.append(f"{sections} numbered section(s) (I., II. ...) inside named chapters are read as "
                          "sections, not chapters")
    jumps = _numbering_note([h for h in headings if h.form not in ("titled", "named", "markdown")])
    if jumps:
        scan.notes.append(jumps)
    for listed in contents:
        note = contents_note(listed, [(c.book, c.number, c.title, c.heading) for c in scan.chapters])
        if note:
            scan.notes.append(note)
    return scan


def split_chapters(text: str, *, min_opening_words: int = 300) -> list[TextChapter]:
    """The chapters of ``text`` by :func:`find_headings`; parts (``Part II``, ``Book Two``)
    number the books. Text before the first heading is front matter (a title page, a contents
    list, a preface) unless it holds at least ``min_opening_words`` words before any of those,
    when it is an opening chapter. A text without headings is one chapter."""
    return scan_chapters(text, min_opening_words=min_opening_words).chapters


__all__ = ["CHAPTER_PATTERNS", "ChapterScan", "Heading", "TextChapter", "chapter_at", "find_headings",
           "scan_chapters", "split_chapters"]
