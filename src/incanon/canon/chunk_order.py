"""Chunk vectors kept in story order, so that a knowledge scope is a prefix of the matrix.

A scope allows the chunks at or before its position, and (witnessed only) those tied to no scene
or to a scene the character was present at. With the chunk matrix sorted by story position,
"at or before" is one binary search giving a prefix, and the witnessed filter is a set test on the
prefix's scene ids (``np.isin`` against the few scenes the character witnessed), so a search reads
no SQL row per chunk and scores only the prefix: at 100k chunks it is a few milliseconds where
asking SQL for every allowed row id took tens.

The order is built once per vector set from the cached matrix (:class:`VectorCache`) and the
chunks' ``pos_key`` / ``scene_id`` columns, and kept until the set's generation changes (a work's
chunks change only by re-import, which drops its vector sets).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

import numpy as np

from incanon.canon.vectors import VectorCache


@dataclass(frozen=True)
class OrderedChunks:
    """Chunk vectors of one set, sorted by story position."""

    ids: np.ndarray
    """Chunk row ids."""
    keys: np.ndarray
    """Position keys, ascending."""
    scenes: np.ndarray
    """Scene row id of each chunk (-1: tied to no scene)."""
    matrix: np.ndarray
    """Normalised vectors, row i embedding ``ids[i]``."""


def load_ordered(conn: sqlite3.Connection, cache: VectorCache, set_row: sqlite3.Row, work_row_id: int) -> OrderedChunks:
    """The chunk set of ``set_row`` in story order (cached on ``cache`` by set and generation)."""
    known = cache.ordered.get(set_row["id"])
    if known is not None and known[0] == set_row["generation"]:
        return known[1]
    item_ids, matrix = cache.load(conn, set_row)
    rows = np.array(conn.execute("SELECT id, pos_key, COALESCE(scene_id, -1) FROM chunks WHERE work_id = ? "
                                 "ORDER BY id", (work_row_id,)).fetchall(), dtype=np.int64).reshape(-1, 3)
    at = np.searchsorted(rows[:, 0], item_ids) if rows.size else np.zeros(0, dtype=np.int64)
    keep = at < len(rows)
    keep[keep] = rows[at[keep], 0] == item_ids[keep]  # vectors of chunks that still exist
    at, ids, matrix = at[keep], item_ids[keep], matrix[keep]
    keys, scenes = rows[at, 1], rows[at, 2]
    order = np.argsort(keys, kind="stable")
    ordered = OrderedChunks(ids[order], keys[order], scenes[order], np.ascontiguousarray(matrix[order]))
    cache.ordered[set_row["id"]] = (set_row["generation"], ordered)
    return ordered


def search_ordered(chunks: OrderedChunks, query: np.ndarray, k: int, at_key: int,
                   witnessed: np.ndarray | None = None, *, perceived: np.ndarray | None = None
                   ) -> list[tuple[int, float]]:
    """Top-``k`` (chunk row id, cosine) among chunks at or before ``at_key`` and, when
    ``witnessed`` (scene row ids) is given, tied to no scene or to one of those scenes; when
    ``perceived`` (chunk row ids) is given, only those chunks."""
    n = int(np.searchsorted(chunks.keys, at_key, side="right"))
    if n == 0 or k <= 0:
        return []
    q = np.asarray(query, dtype=np.float32).reshape(-1)
    qn = q / (np.linalg.norm(q) or 1.0)
    scores = chunks.matrix[:n] @ qn
    if witnessed is not None or perceived is not None:
        if perceived is not None:
            allowed = np.flatnonzero(np.isin(chunks.ids[:n], perceived))
        else:
            scene = chunks.scenes[:n]
            allowed = np.flatnonzero((scene < 0) | np.isin(scene, witnessed))
        if allowed.size == 0:
            return []
        scores, rows = scores[allowed], allowed
    else:
        rows = np.arange(n)
    top = np.argpartition(-scores, k - 1)[:k] if scores.size > k else np.arange(scores.size)
    top = top[np.argsort(-scores[top], kind="stable")]
    return [(int(chunks.ids[rows[i]]), float(scores[i])) for i in top]


__all__ = ["OrderedChunks", "load_ordered", "search_ordered"]
