"""The graph's tables in the canon store (schema versions 3-4), for one work.

``GraphDB`` holds its own SQLite connection to the store's database (WAL lets it sit beside
the ``CanonStore`` connection) and does every read and write of the graph tables, so the rest
of the package speaks in nodes, edges and chunks.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from incanon.canon.schema import connect, transaction
from incanon.canon.store import CanonStore
from incanon.graph.chunking import SourceChunk
from incanon.graph.parse import Extraction


@dataclass(frozen=True)
class ChunkRow:
    """A chunk as the graph tables keep it."""

    row_id: int
    id: str
    source: str
    pos_key: int | None
    scene: str | None
    canon_chunk: str | None
    tokens: int
    status: str
    entities: int
    relations: int
    calls: int
    note: str


@dataclass(frozen=True)
class NodeRow:
    row_id: int
    name: str
    type: str
    description: str
    summarized: bool
    digest: str


@dataclass(frozen=True)
class EdgeRow:
    row_id: int
    a: int
    b: int
    description: str
    weight: float
    summarized: bool


class GraphDB:
    """Read and write the knowledge graph of ``work`` in ``canon``'s database."""

    def __init__(self, canon: CanonStore, work: str):
        info = canon.work(work)  # NotFoundError listing the works
        self.canon = canon
        self.work = info
        self.conn: sqlite3.Connection = connect(canon.db_path)
        self.wid = int(self.conn.execute("SELECT id FROM works WHERE slug = ?", (info.id,)).fetchone()[0])
        self.skipped: list[str] = []
        """Notes on the sources the last ``register_chunks`` left out (already indexed content)."""

    def close(self) -> None:
        self.conn.close()

    def tx(self):  # noqa: ANN201 - a context manager
        """One write transaction."""
        return transaction(self.conn)

    # -- meta ------------------------------------------------------------------------------
    def meta(self, key: str, default: Any = None) -> Any:
        row = self.conn.execute("SELECT value FROM graph_meta WHERE work_id = ? AND key = ?", (self.wid, key)).fetchone()
        return default if row is None else json.loads(row[0])

    def set_meta(self, key: str, value: Any) -> None:
        self.conn.execute("INSERT OR REPLACE INTO graph_meta (work_id, key, value) VALUES (?, ?, ?)",
                          (self.wid, key, json.dumps(value)))

    def generation(self) -> int:
        """Changes whenever nodes, edges or vectors change (readers cache on it)."""
        return int(self.meta("generation", 0))

    def bump(self) -> None:
        self.set_meta("generation", self.generation() + 1)

    # -- chunks ----------------------------------------------------------------------------
    def same_content(self, chunks: Sequence[SourceChunk]) -> dict[str, str]:
        """Sources of ``chunks`` new to the work whose chunks (text and position, in order) equal
        those of a source already indexed: source → the indexed one. The same file under another
        path (moved, copied, linked) would otherwise be extracted again and double its mentions."""
        by_source: dict[str, list[tuple[str, int | None]]] = {}
        for c in chunks:
            by_source.setdefault(c.source, []).append((c.digest, None if c.position is None else c.position.key))
        indexed: dict[str, list[tuple[str, int | None]]] = {}
        for row in self.conn.execute("SELECT source, digest, pos_key FROM graph_chunks WHERE work_id = ? ORDER BY id",
                                     (self.wid,)):
            indexed.setdefault(row[0], []).append((row[1], row[2]))
        found: dict[str, str] = {}
        for source, cut in by_source.items():
            if source in indexed:
                continue
            twin = next((other for other, theirs in indexed.items() if theirs == cut), None)
            if twin is not None:
                found[source] = twin
        return found

    def register_chunks(self, chunks: Sequence[SourceChunk], documents: Iterable[str] = ()
                        ) -> tuple[list[str], list[str]]:
        """Record chunks to extract; returns (new ids, ids whose text changed or vanished).
        A changed chunk loses its old extraction, so the next integration redoes it; a chunk of
        one of ``documents`` (given whole) that the new cut no longer has is removed. A source
        whose content is already indexed under another one (``same_content``) is left out and
        named in ``self.skipped``."""
        new, changed = [], []
        twins = self.same_content(chunks)
        self.skipped = [f"{s}: same content as {t}, already indexed" for s, t in twins.items()]
        chunks = [c for c in chunks if c.source not in twins]
        with self.tx():
            given = {c.id for c in chunks}
            for doc in set(documents):
                for row in self.conn.execute("SELECT id, ext_id FROM graph_chunks WHERE work_id = ? AND source = ?",
                                             (self.wid, doc)).fetchall():
                    if row["ext_id"] not in given:
                        self.conn.execute("DELETE FROM graph_chunks WHERE id = ?", (row["id"],))
                        changed.append(row["ext_id"])
            for c in chunks:
                row = self.conn.execute("SELECT id, digest FROM graph_chunks WHERE work_id = ? AND ext_id = ?",
                                        (self.wid, c.id)).fetchone()
                if row is not None and row["digest"] == c.digest:
                    continue
                if row is not None:
                    self.conn.execute("DELETE FROM graph_chunks WHERE id = ?", (row["id"],))
                    changed.append(c.id)
                else:
                    new.append(c.id)
                self.conn.execute(
                    "INSERT INTO graph_chunks (work_id, ext_id, source, pos_key, canon_chunk, scene, text, digest,"
                    " tokens) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (self.wid, c.id, c.source, None if c.position is None else c.position.key, c.canon_chunk,
                     c.scene, c.text, c.digest, c.tokens))
            if changed:
                self.bump()
        return new, changed

    def chunk_rows(self, statuses: Iterable[str] | None = None) -> list[ChunkRow]:
        sql = ("SELECT id, ext_id, source, pos_key, scene, canon_chunk, tokens, status, entities, relations,"
               " calls, note FROM graph_chunks WHERE work_id = ?")
        params: list[Any] = [self.wid]
        if statuses is not None:
            wanted = list(statuses)
            sql += f" AND status IN ({','.join('?' * len(wanted))})"
            params += wanted
        rows = self.conn.execute(sql + " ORDER BY COALESCE(pos_key, -1), id", params).fetchall()
        return [ChunkRow(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11]) for r in rows]

    def chunk_text(self, row_id: int) -> SourceChunk:
        from incanon.canon.position import Position

        r = self.conn.execute("SELECT * FROM graph_chunks WHERE id = ?", (row_id,)).fetchone()
        pos = None if r["pos_key"] is None else Position.from_key(self.work.axis, r["pos_key"])
        return SourceChunk(r["ext_id"], r["text"], pos, r["source"], r["scene"], r["canon_chunk"])

    def save_extraction(self, row_id: int, status: str, extraction: Extraction, calls: int, notes: list[str]) -> None:
        """Store one chunk's raw extraction and status (one transaction: resumable per chunk)."""
        with self.tx():
            self.conn.execute("DELETE FROM graph_raw WHERE chunk_id = ?", (row_id,))
            rows = [(row_id, i, "entity", e.name, e.type, e.description, 0.0, e.valid_from, e.valid_to)
                    for i, e in enumerate(extraction.entities)]
            base = len(rows)
            rows += [(row_id, base + i, "relation", r.source, r.target, r.description, r.strength, r.valid_from,
                      r.valid_to) for i, r in enumerate(extraction.relations)]
            self.conn.executemany("INSERT INTO graph_raw (chunk_id, ord, kind, a, b, description, strength, valid_from,"
                                  " valid_to) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
            self.conn.execute(
                "UPDATE graph_chunks SET status = ?, entities = ?, relations = ?, calls = calls + ?, note = ?"
                " WHERE id = ?",
                (status, len(extraction.entities), len(extraction.relations), calls, "; ".join(dict.fromkeys(notes)),
                 row_id))

    def raw(self, chunk_row_id: int) -> list[sqlite3.Row]:
        return self.conn.execute("SELECT * FROM graph_raw WHERE chunk_id = ? ORDER BY ord", (chunk_row_id,)).fetchall()

    def add_note(self, chunk_row_id: int, note: str) -> None:
        self.conn.execute("UPDATE graph_chunks SET note = CASE WHEN note = '' THEN ? ELSE note || '; ' || ? END"
                          " WHERE id = ?", (note, note, chunk_row_id))

    # -- nodes -----------------------------------------------------------------------------
    def node(self, row_id: int) -> NodeRow:
        r = self.conn.execute("SELECT id, name, type, description, summarized, digest FROM graph_nodes WHERE id = ?",
                              (row_id,)).fetchone()
        return NodeRow(r[0], r[1], r[2], r[3], bool(r[4]), r[5])

    def nodes(self, type_: str | None = None) -> list[NodeRow]:
        sql, params = "SELECT id, name, type, description, summarized, digest FROM graph_nodes WHERE work_id = ?", [self.wid]
        if type_:
            sql += " AND type = ?"
            params.append(type_)
        return [NodeRow(r[0], r[1], r[2], r[3], bool(r[4]), r[5]) for r in self.conn.execute(sql + " ORDER BY id", params)]

    def new_node(self, name: str, type_: str) -> int:
        return int(self.conn.execute("INSERT INTO graph_nodes (work_id, name, type) VALUES (?, ?, ?)",
                                     (self.wid, name, type_)).lastrowid or 0)

    def rename(self, node_id: int, name: str) -> None:
        self.conn.execute("UPDATE graph_nodes SET name = ? WHERE id = ?", (name, node_id))

    def set_description(self, node_id: int, description: str, summarized: bool, digest: str) -> None:
        self.conn.execute("UPDATE graph_nodes SET description = ?, summarized = ?, digest = ? WHERE id = ?",
                          (description, int(summarized), digest, node_id))

    def aliases(self, node_id: int) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT alias FROM graph_aliases WHERE node_id = ? ORDER BY alias", (node_id,))]

    def alias_table(self) -> dict[tuple[str, str], int]:
        """(type, norm) → node id, for every alias of the graph."""
        return {(r[0], r[1]): r[2] for r in self.conn.execute(
            "SELECT type, norm, node_id FROM graph_aliases WHERE work_id = ?", (self.wid,))}

    def all_aliases(self) -> list[tuple[int, str, str]]:
        """(node id, alias, type) of every alias."""
        return [(r[0], r[1], r[2]) for r in self.conn.execute(
            "SELECT node_id, alias, type FROM graph_aliases WHERE work_id = ? ORDER BY node_id", (self.wid,))]

    def add_alias(self, node_id: int, alias: str, type_: str, key: str) -> None:
        self.conn.execute("INSERT OR IGNORE INTO graph_aliases (node_id, work_id, norm, type, alias) VALUES (?, ?, ?, ?, ?)",
                          (node_id, self.wid, key, type_, alias))

    def add_node_mention(self, node_id: int, chunk_id: int, ord_: int, surface: str, description: str,
                         from_key: int | None = None, to_key: int | None = None, time_note: str = "") -> None:
        """One mention; ``from_key``/``to_key``: the event time the text gives (None: the chunk's)."""
        self.conn.execute("INSERT OR REPLACE INTO graph_node_mentions (node_id, chunk_id, ord, surface, description,"
                          " from_key, to_key, time_note) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                          (node_id, chunk_id, ord_, surface, description, from_key, to_key, time_note))

    def node_mentions(self, node_id: int) -> list[sqlite3.Row]:
        """A node's mentions in story order (event time, else chunk position), with their chunk's
        id and position (``at``: the mention's effective time key, None for background)."""
        return self.conn.execute(
            "SELECT m.*, c.ext_id, c.pos_key, c.source, c.scene, COALESCE(m.from_key, c.pos_key) AS at"
            " FROM graph_node_mentions m JOIN graph_chunks c ON c.id = m.chunk_id WHERE m.node_id = ?"
            " ORDER BY COALESCE(m.from_key, c.pos_key, -1), c.id, m.ord", (node_id,)).fetchall()

    def merge_nodes(self, keep: int, gone: int) -> None:
        """Fold node ``gone`` into ``keep``: aliases, mentions and edges move; duplicate edges merge."""
        self.conn.execute("UPDATE graph_aliases SET node_id = ? WHERE node_id = ?", (keep, gone))
        self.conn.execute("UPDATE OR IGNORE graph_node_mentions SET node_id = ? WHERE node_id = ?", (keep, gone))
        for e in self.conn.execute("SELECT id, a_id, b_id FROM graph_edges WHERE a_id = ? OR b_id = ?",
                                   (gone, gone)).fetchall():
            a = keep if e["a_id"] == gone else e["a_id"]
            b = keep if e["b_id"] == gone else e["b_id"]
            if a == b:  # an edge between the two merged nodes disappears with the merge
                self.conn.execute("DELETE FROM graph_edges WHERE id = ?", (e["id"],))
                continue
            target = self.edge_id(a, b, create=True)
            self.conn.execute("UPDATE OR IGNORE graph_edge_mentions SET edge_id = ? WHERE edge_id = ?", (target, e["id"]))
            self.conn.execute("DELETE FROM graph_edges WHERE id = ?", (e["id"],))
        self.conn.execute("DELETE FROM graph_nodes WHERE id = ?", (gone,))

    # -- edges -----------------------------------------------------------------------------
    def edge_id(self, a: int, b: int, create: bool = False) -> int | None:
        lo, hi = min(a, b), max(a, b)
        row = self.conn.execute("SELECT id FROM graph_edges WHERE work_id = ? AND a_id = ? AND b_id = ?",
                                (self.wid, lo, hi)).fetchone()
        if row is not None:
            return int(row[0])
        if not create:
            return None
        return int(self.conn.execute("INSERT INTO graph_edges (work_id, a_id, b_id) VALUES (?, ?, ?)",
                                     (self.wid, lo, hi)).lastrowid or 0)

    def add_edge_mention(self, edge_id: int, chunk_id: int, ord_: int, source: str, target: str,
                         description: str, strength: float, from_key: int | None = None,
                         to_key: int | None = None, time_note: str = "") -> None:
        self.conn.execute("INSERT OR REPLACE INTO graph_edge_mentions (edge_id, chunk_id, ord, source, target,"
                          " description, strength, from_key, to_key, time_note) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                          (edge_id, chunk_id, ord_, source, target, description, strength, from_key, to_key, time_note))

    def edge(self, edge_id: int) -> EdgeRow:
        r = self.conn.execute("SELECT id, a_id, b_id, description, weight, summarized FROM graph_edges WHERE id = ?",
                              (edge_id,)).fetchone()
        return EdgeRow(r[0], r[1], r[2], r[3], r[4], bool(r[5]))

    def edges(self) -> list[EdgeRow]:
        return [EdgeRow(r[0], r[1], r[2], r[3], r[4], bool(r[5])) for r in self.conn.execute(
            "SELECT id, a_id, b_id, description, weight, summarized FROM graph_edges WHERE work_id = ? ORDER BY id",
            (self.wid,))]

    def edge_mentions(self, edge_id: int) -> list[sqlite3.Row]:
        return self.conn.execute(
            "SELECT m.*, c.ext_id, c.pos_key, COALESCE(m.from_key, c.pos_key) AS at FROM graph_edge_mentions m"
            " JOIN graph_chunks c ON c.id = m.chunk_id"
            " WHERE m.edge_id = ? ORDER BY COALESCE(m.from_key, c.pos_key, -1), c.id, m.ord", (edge_id,)).fetchall()

    def set_edge(self, edge_id: int, description: str, weight: float, summarized: bool) -> None:
        self.conn.execute("UPDATE graph_edges SET description = ?, weight = ?, summarized = ? WHERE id = ?",
                          (description, weight, int(summarized), edge_id))

    # -- verdicts and vectors --------------------------------------------------------------
    def verdict(self, a: str, b: str) -> bool | None:
        lo, hi = sorted((a, b))
        row = self.conn.execute("SELECT same FROM graph_verdicts WHERE work_id = ? AND a = ? AND b = ?",
                                (self.wid, lo, hi)).fetchone()
        return None if row is None else bool(row[0])

    def set_verdict(self, a: str, b: str, same: bool, reason: str) -> None:
        lo, hi = sorted((a, b))
        self.conn.execute("INSERT OR REPLACE INTO graph_verdicts VALUES (?, ?, ?, ?, ?)",
                          (self.wid, lo, hi, int(same), reason))

    def put_vectors(self, embedder: str, items: Sequence[tuple[int, str]], matrix: np.ndarray) -> None:
        mat = np.ascontiguousarray(np.asarray(matrix, dtype="<f4"))
        self.conn.executemany("INSERT OR REPLACE INTO graph_vectors VALUES (?, ?, ?, ?)",
                              ((nid, embedder, digest, mat[i].tobytes()) for i, (nid, digest) in enumerate(items)))

    def vector_digests(self, embedder: str) -> dict[int, str]:
        return {r[0]: r[1] for r in self.conn.execute(
            "SELECT v.node_id, v.digest FROM graph_vectors v JOIN graph_nodes n ON n.id = v.node_id"
            " WHERE n.work_id = ? AND v.embedder = ?", (self.wid, embedder))}

    def vectors(self, embedder: str) -> tuple[np.ndarray, np.ndarray]:
        """(node ids ascending, float32 matrix) of every node vector from ``embedder``."""
        cur = self.conn.cursor()
        cur.row_factory = None
        rows = cur.execute("SELECT v.node_id, v.vec FROM graph_vectors v JOIN graph_nodes n ON n.id = v.node_id"
                           " WHERE n.work_id = ? AND v.embedder = ? ORDER BY v.node_id", (self.wid, embedder)).fetchall()
        ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        if not rows:
            return ids, np.zeros((0, 0), dtype=np.float32)
        mat = np.frombuffer(b"".join(r[1] for r in rows), dtype="<f4").reshape(len(rows), -1).astype(np.float32)
        return ids, mat

    def counts(self) -> dict[str, int]:
        q = lambda sql: int(self.conn.execute(sql, (self.wid,)).fetchone()[0])  # noqa: E731
        return {
            "chunks": q("SELECT COUNT(*) FROM graph_chunks WHERE work_id = ?"),
            "nodes": q("SELECT COUNT(*) FROM graph_nodes WHERE work_id = ?"),
            "aliases": q("SELECT COUNT(*) FROM graph_aliases WHERE work_id = ?"),
            "edges": q("SELECT COUNT(*) FROM graph_edges WHERE work_id = ?"),
        }
