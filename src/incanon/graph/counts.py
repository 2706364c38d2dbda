"""How much of a work's knowledge graph a knowledge scope sees: the counts the scope panel shows.

A store built from a book holds its entities and relations in the graph (``canon build``'s graph
stage, ``graph build``), not in the world file's entity and relation tables; a scope summary that
counted only those said "entities 0 | 0" on a store whose build reported 7. The graph's own cut
(:class:`~incanon.graph.view.GraphView`: a node is visible once a readable mention of it is,
an edge once both ends and a mention are) decides what counts as visible here.

Reading every mention costs a few milliseconds per thousand, so counts are kept per scope until
the store changes (``CanonStore.data_version``): a chat asks on every reply, and then reads nothing.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from incanon.canon.scope import KnowledgeScope
from incanon.canon.store import CanonStore

if TYPE_CHECKING:
    from incanon.graph.db import GraphDB

_CACHE: dict[tuple[Any, ...], tuple[tuple[int, int], dict[str, dict[str, int]] | None]] = {}
_LOCK = threading.Lock()
_MAX = 512


def _count(db: "GraphDB", sql: str) -> int:
    return int(db.conn.execute(sql, (db.wid,)).fetchone()[0])


def graph_counts(store: CanonStore, scope: KnowledgeScope) -> dict[str, dict[str, int]] | None:
    """``{"visible": {"graph_entities": n, "graph_relations": m}, "hidden": {...}}`` for the graph
    of ``scope``'s work as ``scope`` sees it; None when the work has no graph."""
    from incanon.graph.db import GraphDB
    from incanon.graph.view import GraphView

    key = (str(store.path), scope.work.id, scope.character.name if scope.character else None, str(scope.at),
           scope.witnessed_only)
    stamp = store.data_version()  # a reply asks again: nothing is read unless the store changed
    with _LOCK:
        known = _CACHE.get(key)
    if known is not None and known[0] == stamp:
        return known[1]
    db = GraphDB(store, scope.work.id)
    try:
        nodes = _count(db, "SELECT COUNT(*) FROM graph_nodes WHERE work_id = ?")
        counts = None
        if nodes:
            view = GraphView(db, scope)
            edges = _count(db, "SELECT COUNT(*) FROM graph_edges WHERE work_id = ?")
            seen_nodes, seen_edges = len(view.node_ids()), view.visible_edge_count()
            counts = {"visible": {"graph_entities": seen_nodes, "graph_relations": seen_edges},
                      "hidden": {"graph_entities": nodes - seen_nodes, "graph_relations": edges - seen_edges}}
    finally:
        db.close()
    with _LOCK:
        if len(_CACHE) >= _MAX:
            _CACHE.clear()
        _CACHE[key] = (stamp, counts)
    return counts


def with_graph_counts(store: CanonStore, scope: KnowledgeScope | None) -> dict[str, Any] | None:
    """``scope.describe()`` with the graph's counts added when the work has a graph."""
    if scope is None:
        return None
    summary = scope.describe()
    counts = graph_counts(store, scope)
    if counts is not None:
        summary["visible"].update(counts["visible"])
        summary["hidden"].update(counts["hidden"])
    return summary


__all__ = ["graph_counts", "with_graph_counts"]
