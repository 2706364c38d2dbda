"""What the baselines read when a work has a knowledge graph: the indexed corpus itself.

A store built from corpus files has no canon chunks and no canon profile, so the paper's
baselines must read the graph's chunks: ``rag-chunks`` searches their vectors (written at build
time), ``profile`` summarizes the chunks that name the character. Through a knowledge scope a
chunk counts when its text is at or before the character's position (background text always
counts), as TimeChara's RAG-cutoff cuts; on a date axis its text is then cut to the sentences
true at the position (``cutoff.cut_text``: a biography's background chunk tells the whole life).
Only the graph methods know when each extracted fact becomes true. A work without graph chunks falls back to its canon
chunks (``incanon.retrieval``).

``timed_names`` gives the names a character goes by at a position, from the graph's view
through the scope, so no prompt at a position says a name the story only gives later.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from incanon.agents.base import CharacterAt
from incanon.bench.rolerag.cutoff import PromptCut
from incanon.canon.store import CanonStore
from incanon.graph.db import GraphDB
from incanon.graph.names import fold
from incanon.graph.view import GraphView
from incanon.models.types import Embedder


@dataclass(frozen=True)
class CorpusChunk:
    """A chunk of the indexed corpus, as the baselines show it."""

    id: str
    text: str
    position: str
    score: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "position": self.position, "score": round(self.score, 4)}


class GraphCorpus:
    """The graph chunks of the works of one store, read through characters' scopes."""

    def __init__(self, store: CanonStore):
        self.store = store
        self._dbs: dict[str, GraphDB | None] = {}
        self._views: dict[tuple[str, int, int | None, bool], GraphView] = {}

    def db(self, work: str) -> GraphDB | None:
        """The work's graph tables when it has graph chunks, else None."""
        if work not in self._dbs:
            db = GraphDB(self.store, work)
            if db.counts()["chunks"] == 0:
                db.close()
                self._dbs[work] = None
            else:
                self._dbs[work] = db
        return self._dbs[work]

    def view(self, who: CharacterAt, cutoff: bool = True) -> GraphView | None:
        work = who.scope.work.id
        db = self.db(work)
        if db is None:
            return None
        key = (work, db.generation(), who.position.key if cutoff else None, cutoff)
        if key not in self._views:
            self._views[key] = GraphView(db, who.scope if cutoff else None)
        return self._views[key]

    def _label(self, view: GraphView, pos_key: int | None) -> str:
        return "background" if pos_key is None else str(view._pos(pos_key))

    def chunks(self, who: CharacterAt, cutoff: bool = True) -> list[CorpusChunk] | None:
        """The chunks the character may have read, in story order (None: no graph chunks)."""
        view = self.view(who, cutoff)
        if view is None:
            return None
        rows = view.db.conn.execute("SELECT id, ext_id, text, pos_key FROM graph_chunks WHERE work_id = ?"
                                    " ORDER BY COALESCE(pos_key, -1), id", (view.db.wid,)).fetchall()
        cut = PromptCut(view)
        found = [CorpusChunk(r[1], cut.text(r[2], r[3]), self._label(view, r[3])) for r in rows
                 if r[0] in view.visible_chunks or (not cutoff and r[0] in view.readable_chunks)]
        return [c for c in found if c.text.strip()]

    def search(self, who: CharacterAt, embedder: Embedder, query: str, k: int, cutoff: bool = True
               ) -> list[CorpusChunk] | None:
        """The ``k`` chunks closest to ``query`` that the character may have read (None: no
        graph chunks)."""
        from incanon.graph.chunkvec import search_chunks

        view = self.view(who, cutoff)
        if view is None:
            return None
        allowed = view.visible_chunks if cutoff else view.readable_chunks
        cut = PromptCut(view)
        # At a cutoff a chunk with nothing true yet is no hit: rank them all, cut from the best.
        hits = search_chunks(view.db, embedder, query, len(allowed) if cut.active else k, allowed)
        found: list[CorpusChunk] = []
        for h in hits:
            text = cut.text(h.text, h.pos_key)
            if text.strip():
                found.append(CorpusChunk(h.id, text, self._label(view, h.pos_key), h.score))
            if len(found) >= k:
                break
        return found

    def timed_names(self, who: CharacterAt) -> tuple[str, list[str]] | None:
        """(name, other names) of the character as the story has named them by ``who.position``,
        from the graph (None: the work has no graph, or the character no node)."""
        view = self.view(who, cutoff=True)
        if view is None:
            return None
        me = view.find_any([who.character, *who.aliases]) or view.find_any([who.character, *who.aliases], None)
        if me is None:
            return None
        node = view.node(me)
        known = {fold(node.name), *(fold(a) for a in node.aliases)}
        name = who.character if fold(who.character) in known else node.name
        others = [a for a in (who.character, *who.aliases, *node.aliases)
                  if fold(a) in known and fold(a) != fold(name)]
        return name, list(dict.fromkeys(others))
