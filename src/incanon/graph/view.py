"""``GraphView``: the knowledge graph as one reader sees it.

Without a scope it is the omniscient reader's graph. With a ``KnowledgeScope`` it keeps only
what the text up to the character's position says, through the scope's own rules: a mention
counts when its chunk is at or before the position (or has no position: background text) and,
when the scope keeps to witnessed scenes, is not tied to a scene the character missed. A node
or edge exists for the reader once one of its mentions does; its weight and description are
rebuilt from the visible mentions alone, so a summary written from the whole story can never
leak a later chapter into a point-in-time answer.
"""

from __future__ import annotations

import threading
from collections import Counter, defaultdict
from dataclasses import dataclass

import numpy as np

from incanon.canon.names import norm
from incanon.canon.position import Position
from incanon.canon.reads import position_of
from incanon.canon.scope import KnowledgeScope
from incanon.canon.store import CanonStore
from incanon.graph.config import GraphConfig
from incanon.graph.db import GraphDB
from incanon.graph.integrate import joined
from incanon.graph.names import fold
from incanon.graph.sentdates import has_later, visible_part
from incanon.tokens import count_tokens


@dataclass(frozen=True)
class GraphNode:
    """An entity as the reader sees it."""

    id: int
    name: str
    type: str
    description: str
    aliases: tuple[str, ...]
    position: Position | None
    """First position the reader can see it at (None: background text)."""
    mentions: int

    def to_dict(self) -> dict[str, object]:
        return {"name": self.name, "type": self.type, "description": self.description,
                "aliases": list(self.aliases), "position": None if self.position is None else str(self.position),
                "mentions": self.mentions}


@dataclass(frozen=True)
class GraphEdge:
    """A relation between two entities as the reader sees it (undirected)."""

    id: int
    source: str
    target: str
    source_id: int
    target_id: int
    description: str
    weight: float
    position: Position | None
    """When it becomes true for the reader (the earliest visible mention's event time, else its
    chunk's position; None: background text)."""
    until: Position | None = None
    """When it stops being true, if every visible mention says so (valid-to, exclusive)."""

    def other(self, node_id: int) -> int:
        return self.target_id if node_id == self.source_id else self.source_id

    def to_dict(self) -> dict[str, object]:
        return {"source": self.source, "target": self.target, "description": self.description,
                "weight": round(self.weight, 3), "position": None if self.position is None else str(self.position),
                "until": None if self.until is None else str(self.until)}


_VEC_CACHE: dict[tuple[str, int, str], tuple[int, np.ndarray, np.ndarray]] = {}
_VEC_LOCK = threading.Lock()


class GraphView:
    """The graph of one work, cut by ``scope`` (None: everything)."""

    def __init__(self, db: GraphDB, scope: KnowledgeScope | None = None, config: GraphConfig | None = None,
                 *, event_time: bool = True):
        self.db = db
        self.scope = scope
        #: False: cut by where a fact is written (its chunk's position) only, ignoring when the
        #: text says it happens; incanon's cutoff before event time, kept to measure the leak.
        self.event_time = event_time
        self.config = config or GraphConfig()
        axis = db.work.axis
        self._pos = lambda key: None if key is None else position_of(axis, key)  # noqa: E731
        rows = db.conn.execute("SELECT id, pos_key, scene, canon_chunk FROM graph_chunks WHERE work_id = ?"
                               " AND status = 'integrated'", (db.wid,)).fetchall()
        self._chunk_pos = {r[0]: r[1] for r in rows}
        #: Graph chunk → the folded text the character perceived of it, when only a part.
        self._partial: dict[int, str] = {}
        #: Chunks the reader may have read: perceived (a canon chunk at or before the position),
        #: else not tied to a scene they missed (time aside).
        self.readable_chunks = {r[0] for r in rows if self._chunk_visible(r[1], r[2], r[3], r[0])}
        #: Readable chunks at or before the reader's position.
        self.visible_chunks = {c for c in self.readable_chunks
                               if scope is None or self._chunk_pos[c] is None or self._chunk_pos[c] <= scope.at.key}
        self._nodes: dict[int, tuple[int | None, int]] = {}
        self._hidden_nodes: set[int] = set()
        self._surfaces: dict[int, Counter[str]] = defaultdict(Counter)
        # A scoped view sums edge weights over visible mentions (an edge may hold future mentions
        # even when both its ends are fully visible).
        self.complete = scope is None
        cur = db.conn.cursor()
        cur.row_factory = None  # plain tuples: Row objects cost more than the query here
        at_keys: dict[int, list[int | None]] = defaultdict(list)
        for node_id, chunk_id, from_key, surface, description in cur.execute(
                "SELECT m.node_id, m.chunk_id, m.from_key, m.surface, m.description FROM graph_node_mentions m"
                " JOIN graph_nodes n ON n.id = m.node_id WHERE n.work_id = ?", (db.wid,)):
            at = self._at(chunk_id, from_key)
            partial = self._partial.get(chunk_id)
            if self.mention_visible(chunk_id, at) and (partial is None or fold(surface) in partial):
                at_keys[node_id].append(at)
                self._surfaces[node_id][surface] += 1
                if self._later_sentences(description, at):  # the merged description would leak them
                    self._hidden_nodes.add(node_id)
            else:
                self._hidden_nodes.add(node_id)
        for node_id, keys in at_keys.items():
            known = [k for k in keys if k is not None]
            self._nodes[node_id] = (min(known) if known and len(known) == len(keys) else None, len(keys))

    def _at(self, chunk_id: int, from_key: int | None) -> int | None:
        """A mention's time: its event time when the text gives one, else its chunk's position."""
        return from_key if from_key is not None and self.event_time else self._chunk_pos.get(chunk_id)

    def _later_sentences(self, description: str, at: int | None) -> bool:
        """A visible mention's description tells, in some sentence, of a date after the reader's
        position (``sentdates``; date axis, event-time cutoff only)."""
        if self.scope is None or not self.event_time:
            return False
        return has_later(description, self.db.work.axis, at, self.scope.at.key, self.config.born_date)

    def _told(self, description: str, at: int | None) -> str:
        """The part of a visible mention's description true at the reader's position."""
        if not self._later_sentences(description, at):
            return description
        assert self.scope is not None
        return visible_part(description, self.db.work.axis, at, self.scope.at.key, self.config.born_date)

    def mention_visible(self, chunk_id: int, at: int | None) -> bool:
        """A mention counts for the reader when its chunk may be read and the time it speaks of
        (its own event time, else its chunk's position) is at or before the reader's position."""
        if chunk_id not in self.readable_chunks:
            return False
        return self.scope is None or at is None or at <= self.scope.at.key

    def _both_seen(self, chunk_id: int, source: str, target: str) -> bool:
        """In a chunk the character perceived only a part of, a relation is seen when both its
        ends are named in that part."""
        partial = self._partial.get(chunk_id)
        return partial is None or (fold(source) in partial and fold(target) in partial)

    def node_chunks(self, node_id: int) -> set[int]:
        """Row ids of the chunks whose visible mentions name the node (its sources)."""
        return {m["chunk_id"] for m in self.db.node_mentions(node_id)
                if self.mention_visible(m["chunk_id"], self._at(m["chunk_id"], m["from_key"]))}

    def _chunk_visible(self, pos_key: int | None, scene: str | None, canon_chunk: str | None = None,
                       chunk_id: int = 0) -> bool:
        scope = self.scope
        if scope is None or not scope.witnessed_only or scope.character is None:
            return True
        if not hasattr(self, "_witnessed"):
            self._witnessed = {s.id for s in scope.scenes(witnessed_only=True)}
            # Every scene of the work, later ones too: a scene after the position is one the
            # character has not witnessed, not one the canon does not know.
            self._canon_scenes = {s.id for s in self.db.canon.scenes(self.db.work.id)}
            self._canon_text = {c.id: c.text for c in self.db.canon.chunks(self.db.work.id)}
        if canon_chunk is not None and canon_chunk in self._canon_text and (pos_key is None or pos_key <= scope.at.key):
            # What the character perceived of the chunk (its units): nothing, a part, or all.
            seen = scope.knowledge().perceived_text(canon_chunk)
            if seen and seen != self._canon_text[canon_chunk]:
                self._partial[chunk_id] = fold(seen)
            return bool(seen)
        if scene is not None:
            # A scene the canon does not know cannot have been missed: time decides alone.
            return scene in self._witnessed or scene not in self._canon_scenes
        return True

    @classmethod
    def open(cls, canon: CanonStore, work: str, scope: KnowledgeScope | None = None,
             config: GraphConfig | None = None) -> "GraphView":
        return cls(GraphDB(canon, work), scope, config)

    # -- nodes -----------------------------------------------------------------------------
    def node_ids(self, type_: str | None = None) -> list[int]:
        if type_ is None:
            return sorted(self._nodes)
        rows = self.db.conn.execute("SELECT id FROM graph_nodes WHERE work_id = ? AND type = ?", (self.db.wid, type_))
        return [r[0] for r in rows if r[0] in self._nodes]

    def visible(self, node_id: int) -> bool:
        return node_id in self._nodes

    def node(self, node_id: int) -> GraphNode:
        row = self.db.node(node_id)
        first, count = self._nodes[node_id]
        description = row.description
        name = row.name
        aliases = tuple(a for a in self.db.aliases(node_id) if a != row.name)
        if node_id in self._hidden_nodes:
            seen = [(m, self._at(m["chunk_id"], m["from_key"])) for m in self.db.node_mentions(node_id)]
            seen = [(m, at) for m, at in seen if self.mention_visible(m["chunk_id"], at)]
            description = self._cut([self._told(m["description"], at) for m, at in seen])
            # Only the names the story has used by now: "Stormwren" after the flood, "Lord
            # Voldemort" once he takes the name; the whole-story canonical name may be later.
            name, aliases = self.names_of(node_id, row.name, aliases)
        return GraphNode(node_id, name, row.type, description, aliases, self._pos(first), count)

    def names_of(self, node_id: int, canonical: str, aliases: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
        """(name, other names) the reader knows the node by: the canonical name once the story has
        used it (or a name of the same normal form), else the visible name used most often."""
        said = self._surfaces.get(node_id, Counter())
        known = {fold(s) for s in said}
        if fold(canonical) in known:
            name = canonical
        elif said:
            name = max(said, key=lambda s: (said[s], len(s), s))
        else:
            name = canonical
        others = [a for a in (canonical, *aliases) if fold(a) in known and fold(a) != fold(name)]
        return name, tuple(dict.fromkeys(others))

    def name(self, node_id: int) -> str:
        """The node's name as the reader knows it."""
        row = self.db.node(node_id)
        if node_id not in self._hidden_nodes:
            return row.name
        return self.names_of(node_id, row.name, ())[0]

    def _cut(self, descriptions: list[str]) -> str:
        # Only what the visible mentions say; over budget, the latest notes win (the
        # character's present), kept in story order.
        kept: list[str] = []
        for d in reversed(descriptions):
            if kept and count_tokens(joined([d, *kept])) > self.config.description_budget:
                break
            kept.insert(0, d)
        return joined(kept)

    def find(self, name: str, type_: str | None = None) -> int | None:
        """The visible node that has ``name`` as name or alias (case-insensitive)."""
        sql, params = "SELECT node_id, type FROM graph_aliases WHERE work_id = ? AND norm = ?", [self.db.wid, norm(name)]
        hits = [(r[0], r[1]) for r in self.db.conn.execute(sql, params) if r[0] in self._nodes]
        if self.scope is not None:  # a name the story has not used yet finds nothing
            hits = [h for h in hits if h[0] not in self._hidden_nodes
                    or fold(name) in {fold(s) for s in self._surfaces.get(h[0], ())}]
        if type_ is not None:
            hits = [h for h in hits if h[1] == type_]
        if not hits:
            return None
        chars = [h for h in hits if h[1] == "character"]
        return (chars or hits)[0][0]

    def find_any(self, names: list[str], type_: str | None = "character") -> int | None:
        for name in names:
            found = self.find(name, type_)
            if found is not None:
                return found
        return None

    # -- edges -----------------------------------------------------------------------------
    def _edge_weights(self, where: str, params: tuple[int, ...]) -> list[tuple[int, int, int, float]]:
        """(edge id, a, b, weight as the reader sees it) of the visible edges matching ``where``
        (alias ``e``): stored weights for a complete view, else sums over visible mentions."""
        cur = self.db.conn.cursor()
        cur.row_factory = None
        rows = [r for r in cur.execute(f"SELECT e.id, e.a_id, e.b_id, e.weight FROM graph_edges e WHERE {where}", params)
                if r[1] in self._nodes and r[2] in self._nodes]
        if self.complete:
            return rows
        sums: dict[int, float] = {}
        for edge_id, chunk_id, strength, from_key, source, target in cur.execute(
                "SELECT m.edge_id, m.chunk_id, m.strength, m.from_key, m.source, m.target FROM graph_edge_mentions m"
                f" WHERE m.edge_id IN (SELECT e.id FROM graph_edges e WHERE {where})", params):
            if self.mention_visible(chunk_id, self._at(chunk_id, from_key)) and self._both_seen(chunk_id, source, target):
                sums[edge_id] = sums.get(edge_id, 0.0) + strength
        return [(r[0], r[1], r[2], sums[r[0]]) for r in rows if r[0] in sums]

    def _edge(self, edge_id: int) -> GraphEdge | None:
        """One edge as the reader sees it (description and weight from visible mentions only)."""
        row = self.db.edge(edge_id)
        if row.a not in self._nodes or row.b not in self._nodes:
            return None
        cur = self.db.conn.cursor()
        cur.row_factory = None
        ms = [(c, s, d, self._at(c, f), t, a, b) for c, s, d, f, t, a, b in cur.execute(
            "SELECT chunk_id, strength, description, from_key, to_key, source, target FROM graph_edge_mentions"
            " WHERE edge_id = ? ORDER BY chunk_id, ord", (edge_id,))]
        seen = [m for m in ms if self.mention_visible(m[0], m[3]) and self._both_seen(m[0], m[5], m[6])]
        if not seen:
            return None
        if len(seen) == len(ms) and not any(self._later_sentences(m[2], m[3]) for m in seen):
            desc, weight = row.description, row.weight
        else:
            order = sorted(seen, key=lambda m: (-1 if m[3] is None else m[3], m[0]))
            desc, weight = self._cut([self._told(m[2], m[3]) for m in order]), float(sum(m[1] for m in seen))
        keys = [m[3] for m in seen]
        first = None if any(k is None for k in keys) else min(k for k in keys if k is not None)
        ends = [m[4] for m in seen]
        until = None if not ends or any(k is None for k in ends) else max(k for k in ends if k is not None)
        return GraphEdge(edge_id, self.name(row.a), self.name(row.b), row.a, row.b, desc, weight, self._pos(first),
                         self._pos(until))

    def _ranked(self, node_id: int, type_: str | None) -> list[tuple[int, int, int, float]]:
        if node_id not in self._nodes:
            return []
        # Written so SQLite can use both indexes: (work_id, a_id, b_id) and (b_id).
        rows = self._edge_weights("(e.work_id = ? AND e.a_id = ?) OR e.b_id = ?", (self.db.wid, node_id, node_id))
        if type_ is not None and rows:
            others = {b if a == node_id else a for _, a, b, _ in rows}
            marks = ",".join("?" * len(others))
            typed = {r[0] for r in self.db.conn.execute(
                f"SELECT id FROM graph_nodes WHERE id IN ({marks}) AND type = ?", (*others, type_))}
            rows = [r for r in rows if (r[2] if r[1] == node_id else r[1]) in typed]
        return sorted(rows, key=lambda r: (-r[3], r[0]))

    def visible_edge_count(self) -> int:
        """How many edges of the work this view shows (both ends visible and, in a scoped view,
        a visible mention)."""
        return len(self._edge_weights("e.work_id = ?", (self.db.wid,)))

    def edges_of(self, node_id: int, limit: int | None = None) -> list[GraphEdge]:
        """Visible edges touching the node, heaviest first (only the heaviest ``limit`` are read)."""
        ranked = self._ranked(node_id, None)
        edges = (self._edge(r[0]) for r in (ranked if limit is None else ranked[:limit]))
        return [e for e in edges if e is not None]

    def edge_between(self, a: int, b: int) -> GraphEdge | None:
        if a not in self._nodes or b not in self._nodes:
            return None
        edge_id = self.db.edge_id(a, b)
        return None if edge_id is None else self._edge(edge_id)

    def neighbours(self, node_id: int, type_: str | None = None, limit: int | None = None
                   ) -> list[tuple[GraphNode, GraphEdge]]:
        """1-hop neighbours (of ``type_``), ordered by edge weight, heaviest first."""
        ranked = self._ranked(node_id, type_)
        out = []
        for edge_id, a, b, _ in ranked if limit is None else ranked[:limit]:
            edge = self._edge(edge_id)
            if edge is not None:
                out.append((self.node(b if a == node_id else a), edge))
        return out

    # -- vectors ---------------------------------------------------------------------------
    def _matrix(self, embedder: str) -> tuple[np.ndarray, np.ndarray]:
        key = (str(self.db.canon.db_path), self.db.wid, embedder)
        gen = self.db.generation()
        with _VEC_LOCK:
            hit = _VEC_CACHE.get(key)
            if hit is not None and hit[0] == gen:
                return hit[1], hit[2]
        ids, mat = self.db.vectors(embedder)
        if mat.size:
            mat = mat / np.maximum(np.sqrt(np.einsum("ij,ij->i", mat, mat))[:, None], 1e-12)
        with _VEC_LOCK:
            _VEC_CACHE[key] = (gen, ids, mat)
        return ids, mat

    def _allowed(self, embedder: str, ids: np.ndarray, type_: str | None) -> np.ndarray:
        """Boolean mask over ``ids``: visible nodes (of ``type_``), cached per view."""
        key = (embedder, type_, len(ids))
        cache = self.__dict__.setdefault("_masks", {})
        if key not in cache:
            visible = np.fromiter(self._nodes, dtype=np.int64, count=len(self._nodes))
            if type_ is not None:
                visible = np.asarray(self.node_ids(type_), dtype=np.int64)
            cache[key] = np.isin(ids, visible)
        return cache[key]

    def search(self, query: np.ndarray, embedder: str, k: int = 5, threshold: float = -1.0,
               type_: str | None = None) -> list[tuple[GraphNode, float]]:
        """The ``k`` visible nodes (of ``type_``) most similar to ``query``, at or above ``threshold``."""
        ids, mat = self._matrix(embedder)
        if not len(ids) or k <= 0:
            return []
        q = np.asarray(query, dtype=np.float32).reshape(-1)
        q = q / (np.linalg.norm(q) or 1.0)
        scores = np.einsum("ij,j->i", mat, q)  # a multi-threaded BLAS gemv is slower on a small matrix
        scores = np.where(self._allowed(embedder, ids, type_) & (scores >= threshold), scores, -np.inf)
        n = int(np.isfinite(scores).sum())
        if n == 0:
            return []
        top = np.argpartition(-scores, k - 1)[:k] if n > k else np.flatnonzero(np.isfinite(scores))
        top = top[np.argsort(-scores[top], kind="stable")]
        return [(self.node(int(ids[i])), float(scores[i])) for i in top]
