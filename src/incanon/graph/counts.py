"""How much of a work's knowledge graph a knowledge scope sees: the counts the scope panel shows.

A store built from a book holds its entities and relations in the graph (``canon build``'s graph
stage, ``graph build``), not in the world file's entity and relation tables; a scope summary that
counted only those said "entities 0 | 0" on a store whose build reported 7. The graph's own cut
(:class:`~incanon.graph.view.GraphView`: a node is visible once a readable mention of it is,
an edge once both ends and a mention are) decides what counts as visible here.

Reading every mention costs a few milliseconds per thousand, so counts are kept per scope until
the graph changes (its nodes, edges or integrated chunks are counted again).
"""

from __future__ import annotations

import threading
from typing import Any

from incanon.canon.scope import KnowledgeScope
from incanon.canon.store import CanonStore

_CACHE: dict[tuple[Any, ...], tuple[tuple[int, ...], dict[str, dict[str, int]] | None]] = {}
_LOCK = threading.Lock()
_MAX = 512


def _stamp(store: CanonStore, work: str) -> tuple[int, ...]:
    from incanon.graph.db import GraphDB

    db = GraphDB(store, work)
    try:
        row = db.conn.execute(
            "SELECT (SELECT COUNT(*) FROM graph_nodes WHERE work_id = ?), (SELECT COUNT(*) FROM graph_edges WHERE "
            "work_id = ?), (SELECT COUNT(*) FROM graph_chunks WHERE work_id = ? AND status = 'integrated')",
            (db.wid, db.wid, db.wid)).fetchone()
        return tuple(int(v) for v in row)
    finally:
        db.close()


def graph_counts(store: CanonStore, scope: KnowledgeScope) -> dict[str, dict[str, int]] | None:
    """``{"visible": {"graph_entities": n, "graph_relations": m}, "hidden": {...}}`` for the graph
    of ``scope``'s work as ``scope`` sees it; None when the work has no graph."""
    from incanon.graph.db import GraphDB
    from incanon.graph.view import GraphView

    work = scope.work.id
    stamp = _stamp(store, work)
    if stamp[0] == 0:
        return None
    key = (str(store.path), work, scope.character.name if scope.character else None, str(scope.at),
           scope.witnessed_only)
    with _LOCK:
        known = _CACHE.get(key)
    if known is not None and known[0] == stamp:
        return known[1]
    db = GraphDB(store, work)
    try:
        view = GraphView(db, scope)
        nodes = len(view.node_ids())
        edges = view.visible_edge_count()
    finally:
        db.close()
    counts = {"visible": {"graph_entities": nodes, "graph_relations": edges},
              "hidden": {"graph_entities": stamp[0] - nodes, "graph_relations": stamp[1] - edges}}
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
