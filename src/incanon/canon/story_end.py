"""The end of the story as a point a character stands at: one position for every surface.

A built book's main characters get a time point "end of the story" at the end of the book's last
chapter (``incanon.canonbuild.timepoints``). A character without time points is served at the end
too (``/v1/models`` lists it there, the leak audit checks it there), and it is the same point:
the end of the last chapter the work's canon holds, or its last date on a date axis
(:func:`story_end`). It is never the axis' own end (:func:`~incanon.canon.position.end_of_story`,
book 2047), which is no place in any story: that one is the omniscient reader's, where facts
told only as "later" become visible.

A point without a time point is named by its position on every surface (``2-2``, not "end").
"""

from __future__ import annotations

from incanon.canon.position import Axis, Position, end_of_story
from incanon.canon.store import CanonStore


def story_end(store: CanonStore, work: str) -> Position:
    """Where ``work``'s story ends: the end of the chapter of its last scene or time point (its
    chunks' when it has neither, as a corpus built by ``graph build``), or the last date; the
    axis' end only for a work that places nothing."""
    axis = store.work(work).axis
    placed = [s.position for s in store.scenes(work)]
    placed += [tp.position for c in store.characters(work) for tp in c.time_points]
    if not placed:  # chunks are many: read only when nothing else places the story
        placed = [c.position for c in store.chunks(work) if c.position is not None]
    last = max(placed, key=lambda p: p.key, default=None)
    if last is None:
        return end_of_story(axis)
    if axis is Axis.CHAPTER and last.book is not None and last.chapter is not None:
        return Position.chapter_pos(last.book, last.chapter)
    return last
