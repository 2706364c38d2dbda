"""Remove a document or an entity from a work's graph (the reference has ``delete_by_entity``).

* A **document** (a corpus file's id, as ``graph show`` lists sources): its chunks go, with their
  raw extractions and mentions; the graph is then re-derived from the raw extractions of the
  chunks that remain (stored same-entity verdicts are reused, so no pair is judged again; with
  the response cache, canonical names and summaries cost nothing either).
* An **entity** (name or alias): its node goes with its aliases, mentions, relations and vector;
  its names are remembered, so a later build does not bring it back from the raw extractions.
"""

from __future__ import annotations

from incanon.canon.names import norm
from incanon.errors import NotFoundError
from incanon.graph.db import GraphDB
from incanon.graph.names import fold


def documents(db: GraphDB) -> dict[str, int]:
    """Source → number of chunks, for every document of the graph."""
    return {r[0]: int(r[1]) for r in db.conn.execute(
        "SELECT source, COUNT(*) FROM graph_chunks WHERE work_id = ? GROUP BY source ORDER BY source", (db.wid,))}


def delete_document(db: GraphDB, source: str) -> int:
    """Delete the chunks of ``source`` and reset the graph for re-integration; returns the
    number of chunks deleted (the caller runs the integration)."""
    known = documents(db)
    if source not in known:
        raise NotFoundError(f"no document {source!r} in the graph of {db.work.id!r} (documents: "
                            f"{', '.join(known) or 'none'})")
    with db.tx():
        db.conn.execute("DELETE FROM graph_chunks WHERE work_id = ? AND source = ?", (db.wid, source))
        # Nodes and edges are re-derived from the remaining raw extractions.
        db.conn.execute("DELETE FROM graph_nodes WHERE work_id = ?", (db.wid,))
        db.conn.execute("UPDATE graph_chunks SET status = 'extracted' WHERE work_id = ? AND status = 'integrated'",
                        (db.wid,))
        db.bump()
    return known[source]


def delete_entity(db: GraphDB, name: str) -> tuple[str, list[str]]:
    """Delete the entity named ``name`` (any alias); returns (its name, its aliases)."""
    row = db.conn.execute("SELECT node_id FROM graph_aliases WHERE work_id = ? AND norm = ?",
                          (db.wid, norm(name))).fetchone()
    if row is None:
        raise NotFoundError(f"no entity named {name!r} in the graph of {db.work.id!r}")
    node = db.node(int(row[0]))
    aliases = db.aliases(node.row_id)
    deleted = [list(x) for x in db.meta("deleted_entities", []) or []]
    with db.tx():
        for alias in {node.name, *aliases}:
            if fold(alias) not in {d[0] for d in deleted}:
                deleted.append([fold(alias)])
        db.conn.execute("DELETE FROM graph_nodes WHERE id = ?", (node.row_id,))
        db.set_meta("deleted_entities", deleted)
        db.bump()
    return node.name, [a for a in aliases if a != node.name]
