"""The placement check: stored text whose position looks wrong.

Every scope trusts the positions the store gives. A chunk of chapter 9 stored at scene 1-1-1
(a wrong split, a bad import, a helper's mistake) is retrieved, labelled in scope, by everyone
at 1-1-1, and both the word check and the canaries follow the stored position. This check reads
the text against the rest of the story instead:

* **names introduced later**: the chunk names a character or entity that nothing else in the
  store introduces before a later chapter (its first appearance, its dated position, and the
  earliest other chunk, scene text or fact that names it are all later);
* **reads like a later chapter**: its vector is closer to the centroid of a later chapter's
  chunks than to its own chapter's (itself left out), by at least ``margin``.

A chunk is reported when both say so (``strict``) or either does (the report lists each reason);
the audit fails on the strict ones. Neither signal alone is proof: a prologue may name someone
who only appears later, and a recap may read like the chapter it recalls.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from incanon.canon.namebook import NameBook
from incanon.canon.position import Axis, Position
from incanon.canon.records import ChunkRecord
from incanon.canon.store import CanonStore
from incanon.models.types import Embedder
from incanon.retrieval.chunks import end_of_story

#: How much closer (cosine) a chunk must read to a later chapter than to its own.
DEFAULT_MARGIN = 0.05


@dataclass
class Misplaced:
    """A chunk whose stored position looks wrong, and why."""

    chunk: str
    position: str
    reasons: list[str] = field(default_factory=list)
    later_names: list[str] = field(default_factory=list)
    reads_like: str | None = None
    """The later chapter the chunk reads like (``"3-2"``), when it does."""

    @property
    def strict(self) -> bool:
        """Both signals agree: a later name and a later chapter's wording."""
        return bool(self.later_names) and self.reads_like is not None

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        return {"chunk": self.chunk, "position": self.position, "strict": self.strict, "reasons": self.reasons}


def _chapter(pos: Position) -> tuple[int, ...]:
    """The chapter a position belongs to (dates: the month), for grouping and comparing."""
    if pos.axis == Axis.DATE and pos.date is not None:
        return (pos.date.year, pos.date.month)
    return (pos.book or 0, pos.chapter or 0)


def _label(chapter: tuple[int, ...], axis: Axis) -> str:
    return f"{chapter[0]}-{chapter[1]:02d}" if axis == Axis.DATE else f"{chapter[0]}-{chapter[1]}"


def _introductions(store: CanonStore, work: str, chunks: list[ChunkRecord]) -> tuple[NameBook, dict[str, Position], dict[str, list[tuple[Position, str]]]]:
    characters = store.characters(work)
    entities = store.entities(work)
    book = NameBook([(c.name, c.aliases) for c in characters] + [(e.name, e.aliases) for e in entities])
    dated: dict[str, Position] = {}
    for c in characters:
        if c.first_position is not None:
            dated[c.name] = c.first_position
    for e in entities:
        if e.position is not None:
            dated.setdefault(e.name, e.position)
    # Where each name is introduced by anything else: other chunks, and the scenes' own titles,
    # summaries and lines and the facts, which a re-dated chunk does not carry along.
    texts: list[tuple[Position, str, str]] = [(c.position, c.id, c.text) for c in chunks]
    whole = store.scope(work, None, end_of_story(store.work(work).axis))
    for scene in whole.scenes():
        lines = [m.speech + " " + m.action for m in whole.messages(scene.id)]
        texts.append((scene.position, f"scene:{scene.id}", " ".join([scene.title, scene.summary, *lines])))
    texts += [(f.position, f"fact:{f.id}", f.text) for f in whole.facts(include_expired=True)]
    named: dict[str, list[tuple[Position, str]]] = defaultdict(list)
    for position, source, text in texts:
        for owner in {book.owners.get(n, n) for n in book.mentions(text)}:
            named[owner].append((position, source))
    for places in named.values():
        places.sort(key=lambda p: p[0].key)
    return book, dated, named


def _later_names(chunk: ChunkRecord, book: NameBook, dated: dict[str, Position],
                 named: dict[str, list[tuple[Position, str]]]) -> list[str]:
    own = _chapter(chunk.position)
    found = []
    for owner in sorted({book.owners.get(n, n) for n in book.mentions(chunk.text)}):
        others = [p for p, cid in named.get(owner, []) if cid != chunk.id][:1]
        first = [dated[owner]] if owner in dated else []
        intro = min(others + first, key=lambda p: p.key, default=None)
        if intro is not None and _chapter(intro) > own:
            found.append(owner)
    return found


def _reads_like(ids: list[str], matrix: np.ndarray, chapters: list[tuple[int, ...]],
                margin: float) -> dict[str, tuple[tuple[int, ...], float, float]]:
    """Chunk id → (later chapter it reads like, cosine there, cosine to its own chapter).

    A chapter's centroid is the sum of its chunks' unit vectors; a chunk is compared with its
    own chapter's centroid less itself, so one product per chunk and chapter does it all."""
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    unit = (matrix / np.where(norms == 0, 1, norms)).astype(np.float64)
    order = sorted(set(chapters))
    own = np.array([order.index(ch) for ch in chapters])
    sums = np.zeros((len(order), unit.shape[1]))
    np.add.at(sums, own, unit)
    counts = np.bincount(own, minlength=len(order))
    rows = np.arange(len(ids))
    dots = unit @ sums.T                                     # chunk · chapter sum
    lengths = np.tile(np.linalg.norm(sums, axis=1), (len(ids), 1))
    self_dot = np.einsum("ij,ij->i", unit, unit)
    dots[rows, own] -= self_dot                              # its own chapter without it
    lengths[rows, own] = np.linalg.norm(sums[own] - unit, axis=1)
    usable = (np.tile(counts, (len(ids), 1)) - np.eye(len(order), dtype=int)[own] > 0) & (lengths > 0)
    sims = np.where(usable, dots / np.where(lengths == 0, 1, lengths), -np.inf)
    found: dict[str, tuple[tuple[int, ...], float, float]] = {}
    for row, mine in enumerate(own):
        later = sims[row, mine + 1:]
        if not usable[row, mine] or not np.isfinite(later).any():
            continue  # alone in its chapter, or nothing later to compare with
        best = mine + 1 + int(np.argmax(later))
        if sims[row, best] - sims[row, mine] >= margin and sims[row, best] == sims[row].max():
            found[ids[row]] = (order[best], float(sims[row, best]), float(sims[row, mine]))
    return found


def placement_check(store: CanonStore, work: str, embedder: Embedder | None = None, *,
                    margin: float = DEFAULT_MARGIN) -> list[Misplaced]:
    """Every chunk of ``work`` whose stored position looks wrong (see the module docstring).
    ``embedder``: the vectors compared (the work is indexed with it first); None skips the
    wording signal, and no chunk can then be strict."""
    chunks = store.chunks(work)
    if not chunks:
        return []
    axis = store.work(work).axis
    book, dated, named = _introductions(store, work, chunks)
    wording: dict[str, tuple[tuple[int, ...], float, float]] = {}
    if embedder is not None:
        from incanon.retrieval import ChunkRetriever

        ChunkRetriever(store, embedder).index(work)
        vectors = store.vectors(work, "chunk", embedder.name)
        by_id = {c.id: c for c in chunks}
        chapters = [_chapter(by_id[i].position) for i in vectors.ids]
        wording = _reads_like(list(vectors.ids), vectors.matrix, chapters, margin)
    found: list[Misplaced] = []
    for c in chunks:
        later = _later_names(c, book, dated, named)
        like = wording.get(c.id)
        if not later and like is None:
            continue
        m = Misplaced(c.id, str(c.position), later_names=later)
        if later:
            m.reasons.append(f"names {', '.join(later)}, introduced only in a later chapter")
        if like is not None:
            m.reads_like = _label(like[0], axis)
            m.reasons.append(f"reads like chapter {m.reads_like} (cosine {like[1]:.2f}) more than its own "
                             f"({like[2]:.2f})")
        found.append(m)
    return found


__all__ = ["DEFAULT_MARGIN", "Misplaced", "placement_check"]
