"""Vectors of the graph's chunks: the RAG baseline searches the same indexed corpus the graph was
built from (a store built from corpus files has no canon chunks), through the same cutoff."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from incanon.graph.db import GraphDB
from incanon.models.types import Embedder


def embed_missing_chunks(db: GraphDB, embedder: Embedder, batch: int = 32,
                         progress: Callable[[int, int], None] | None = None) -> int:
    """Embed (as passages) every chunk of the graph that has no vector from ``embedder``, each
    batch committed when done (a kill loses one batch, not the stage; an embedder behind the
    response cache keeps even that); ``progress(done, todo)`` after each."""
    rows = db.conn.execute(
        "SELECT c.id, c.text FROM graph_chunks c WHERE c.work_id = ? AND NOT EXISTS"
        " (SELECT 1 FROM graph_chunk_vectors v WHERE v.chunk_id = c.id AND v.embedder = ?) ORDER BY c.id",
        (db.wid, embedder.name)).fetchall()
    for start in range(0, len(rows), batch):
        part = rows[start:start + batch]
        mat = np.ascontiguousarray(np.asarray(embedder.embed([r[1] for r in part], kind="passage"), dtype="<f4"))
        with db.tx():
            db.conn.executemany("INSERT OR REPLACE INTO graph_chunk_vectors VALUES (?, ?, ?)",
                                ((r[0], embedder.name, mat[i].tobytes()) for i, r in enumerate(part)))
        if progress is not None:
            progress(start + len(part), len(rows))
    return len(rows)


@dataclass(frozen=True)
class ChunkHit:
    """A graph chunk found for a query."""

    row_id: int
    id: str
    text: str
    pos_key: int | None
    score: float


def chunk_matrix(db: GraphDB, embedder: str) -> tuple[list[tuple[int, str, str, int | None]], np.ndarray]:
    """(rows of (chunk row id, chunk id, text, pos_key), float32 matrix) of the embedded chunks."""
    cur = db.conn.cursor()
    cur.row_factory = None
    rows = cur.execute(
        "SELECT c.id, c.ext_id, c.text, c.pos_key, v.vec FROM graph_chunks c JOIN graph_chunk_vectors v"
        " ON v.chunk_id = c.id WHERE c.work_id = ? AND v.embedder = ? ORDER BY c.id", (db.wid, embedder)).fetchall()
    if not rows:
        return [], np.zeros((0, 0), dtype=np.float32)
    mat = np.frombuffer(b"".join(r[4] for r in rows), dtype="<f4").reshape(len(rows), -1).astype(np.float32)
    return [(r[0], r[1], r[2], r[3]) for r in rows], mat


def search_chunks(db: GraphDB, embedder: Embedder, query: str, k: int = 1,
                  visible: set[int] | None = None) -> list[ChunkHit]:
    """The ``k`` chunks closest to ``query`` (cosine), among ``visible`` chunk row ids (None: all).
    Chunks without a vector are embedded first."""
    embed_missing_chunks(db, embedder)
    rows, mat = chunk_matrix(db, embedder.name)
    if not rows:
        return []
    q = np.asarray(embedder.embed([query], kind="query"), dtype=np.float32).reshape(-1)
    mat = mat / np.maximum(np.linalg.norm(mat, axis=1, keepdims=True), 1e-12)
    scores = mat @ (q / (np.linalg.norm(q) or 1.0))
    order = np.argsort(-scores, kind="stable")
    out = []
    for i in order:
        row = rows[int(i)]
        if visible is not None and row[0] not in visible:
            continue
        out.append(ChunkHit(row[0], row[1], row[2], row[3], float(scores[int(i)])))
        if len(out) >= k:
            break
    return out
