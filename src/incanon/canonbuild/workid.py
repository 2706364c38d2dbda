"""Which work of the canon store a book goes to: a Unicode slug of its title, never another book's.

A work id is the title made a slug (NFKC, casefolded, letters and digits of every script kept,
accents too: "Goede Vaêr Tromp" → ``goede-vaêr-tromp``, 紅樓夢 → ``紅樓夢``). Two books can still
meet on one id (two titles that differ only by punctuation or case, two files both titled by a
file name like ``novel``), so the build keeps a fingerprint of the book it stored with the work:
its content hash and one hash per chapter text (whitespace-insensitive). A book is *the same
work* as the stored one when its content is the same (whatever path it was given by) or when
they share a chapter (the same book edited: a chapter added or corrected). Anything else is
another book: without ``--work`` it gets the id with ``-2`` (``-3``, ...) added; with ``--work``
naming an id that holds another book, the build is refused in one line (``--fresh`` replaces).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass
from typing import Any

from incanon.canon.store import CanonStore
from incanon.ingest.reader import BookText

MAX_ID = 60
"""Characters of a work id made from a title."""
META = "canon_build"
"""The graph meta key under which the build keeps its digest and the book's fingerprint."""


def work_slug(title: str) -> str:
    """``title`` as a work id: letters (any script, accents kept) and digits, joined by ``-``;
    ``book`` when the title has none."""
    text = unicodedata.normalize("NFKC", title).casefold()
    # Combining marks stay with their letter (Devanagari vowel signs, decomposed accents).
    kept = "".join(c if c.isalnum() or (unicodedata.category(c).startswith("M") and c != "\u200d") else " "
                   for c in text)
    slug = "-".join(kept.split())
    return slug[:MAX_ID].strip("-") or "book"


def _chapter_key(text: str) -> str:
    return hashlib.sha256(" ".join(text.split()).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class BookPrint:
    """What identifies a book's content, kept with the work it was built into."""

    digest: str
    chapters: tuple[str, ...]
    title: str

    @classmethod
    def of(cls, book: BookText) -> "BookPrint":
        """The fingerprint of ``book`` (independent of the paths it was read from)."""
        return cls(book.digest, tuple(_chapter_key(c.text) for c in book.chapters), book.title)

    def to_json(self) -> dict[str, Any]:
        return {"book": self.digest, "chapters": list(self.chapters), "title": self.title}

    def same_work(self, stored: dict[str, Any]) -> bool:
        """Whether the work whose build meta is ``stored`` holds this book (or an edit of it)."""
        if stored.get("book") == self.digest:
            return True
        chapters = stored.get("chapters")
        if chapters is None:  # built before chapter keys were kept: the title decides
            return stored.get("title", self.title) == self.title
        return bool(set(chapters) & set(self.chapters))


def stored_print(canon: CanonStore, work: str) -> dict[str, Any] | None:
    """The build meta of ``work`` (None when no ``canon build`` made it)."""
    from incanon.graph.db import GraphDB

    db = GraphDB(canon, work)
    try:
        return db.meta(META)
    finally:
        db.close()


def free_id(canon: CanonStore, base: str, book: BookPrint) -> tuple[str, str]:
    """The id this book takes when none was asked for: ``base`` when it is free or holds this
    book (or an edit of it), else the first ``base-N`` that is; and a note when it is not ``base``."""
    known = {w.id for w in canon.works()}
    for n in range(1, 1000):
        candidate = base if n == 1 else f"{base[:MAX_ID - len(str(n)) - 1]}-{n}"
        if candidate not in known:
            break
        meta = stored_print(canon, candidate)
        if meta is not None and book.same_work(meta):  # None: another command's work, never taken
            break
    else:  # pragma: no cover - a thousand books of one title
        raise RuntimeError(f"no free work id for {base!r}")
    if candidate == base:
        return base, ""
    return candidate, (f"work {base!r} holds another book; this one is work {candidate!r} "
                       f"(give --work {base} --fresh to replace that one instead)")


__all__ = ["META", "BookPrint", "free_id", "stored_print", "work_slug"]
