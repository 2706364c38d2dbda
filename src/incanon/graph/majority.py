"""One name, one type: a name extracted under several types becomes one entity under the type
most of its mentions give (the reference keys nodes by name and takes the most common type), so
"Vienna" as a location in four chunks and an organization in one is one location, and a small
model's six "Ludwig van Beethoven" nodes of mixed types are one character."""

from __future__ import annotations

from collections import Counter, defaultdict

from incanon.canon.names import norm
from incanon.graph.db import GraphDB


def _existing(db: GraphDB, key: str) -> list[tuple[int, str, int]]:
    """(node id, type, mention count) of the stored nodes that have the name ``key`` (normalized)."""
    return [(r[0], r[1], int(r[2])) for r in db.conn.execute(
        "SELECT a.node_id, a.type, (SELECT COUNT(*) FROM graph_node_mentions m WHERE m.node_id = a.node_id)"
        " FROM graph_aliases a WHERE a.work_id = ? AND a.norm = ?", (db.wid, key))]


def majority_types(db: GraphDB, entity_rows: list[dict]) -> int:
    """Rewrite the type of every raw entity row (``a`` name, ``b`` type) of a name to the
    majority type over these rows and the stored nodes of that name (weighted by mentions);
    stored nodes of a losing type are retyped, and folded into a node of the winning type when
    one exists. Returns how many names had more than one type."""
    by_name: dict[str, list[dict]] = defaultdict(list)
    for r in entity_rows:
        by_name[norm(r["a"])].append(r)
    mixed = 0
    for key, rows in by_name.items():
        stored = _existing(db, key)
        votes: Counter[str] = Counter()
        for _, type_, count in stored:
            votes[type_] += max(count, 1)
        for r in rows:
            votes[r["b"]] += 1
        if len(votes) < 2:
            continue
        mixed += 1
        # Ties go to the stored type, then to the type seen first: most_common keeps insertion order.
        winner = votes.most_common(1)[0][0]
        for r in rows:
            r["b"] = winner
        _retype(db, stored, winner)
    return mixed


def _retype(db: GraphDB, stored: list[tuple[int, str, int]], winner: str) -> None:
    keep = next((node for node, type_, _ in stored if type_ == winner), None)
    with db.tx():
        for node, type_, _ in stored:
            if type_ == winner:
                continue
            if keep is None:
                db.conn.execute("UPDATE graph_nodes SET type = ? WHERE id = ?", (winner, node))
                db.conn.execute("UPDATE OR IGNORE graph_aliases SET type = ? WHERE node_id = ?", (winner, node))
                keep = node
            else:
                db.conn.execute("UPDATE OR IGNORE graph_aliases SET type = ? WHERE node_id = ?", (winner, node))
                db.conn.execute("DELETE FROM graph_aliases WHERE node_id = ? AND type != ?", (node, winner))
                db.merge_nodes(keep, node)
        db.bump()
