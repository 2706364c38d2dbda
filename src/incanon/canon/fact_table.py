"""A work's facts held in memory as columns, so a scope's facts are a mask, not a query.

``KnowledgeScope.facts()`` answered with one SQL query per call that joined subjects, scenes and
``known_by`` lists and built a record per row: at 50k facts, tens of milliseconds per scope. The
facts of a work change only when the store is written, so they are read once (records built on
first use, in story order) with their columns as arrays: position key, end key, public flag, scene row
id, and per character the facts it is told of. A scope's facts are then

    key <= at  and  (expired allowed or no end or at < end)
              and  (no character or public or scene witnessed or told)

evaluated with numpy over the arrays, and the records picked by index. The table is cached on
the store's vector cache (cleared by the store's own writes) and keyed by the connection's data
version (other connections' commits), so a stale table is never used.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

import numpy as np

from incanon.canon.position import Axis
from incanon.canon.reads import plain_rows, position_of
from incanon.canon.records import FactRecord

_END = np.iinfo(np.int64).max
_ROWS = (
    "SELECT f.id, f.pos_key, COALESCE(f.to_key, -1), f.public, COALESCE(f.scene_id, -1),"
    " f.ext_id, COALESCE(c.name, e.name), f.text, f.pos_key, f.to_key, s.ext_id, f.public"
    " FROM facts f LEFT JOIN characters c ON c.id = f.subject_character_id"
    " LEFT JOIN entities e ON e.id = f.subject_entity_id LEFT JOIN scenes s ON s.id = f.scene_id"
    " WHERE f.work_id = ? ORDER BY f.pos_key, f.ord"
)
_KNOWN_BY = (
    "SELECT kb.fact_id, kb.character_id, c.name FROM fact_known_by kb JOIN facts f ON f.id = kb.fact_id"
    " JOIN characters c ON c.id = kb.character_id WHERE f.work_id = ? ORDER BY kb.fact_id, kb.ord"
)


def _record(axis: Axis, row: tuple) -> FactRecord:
    ext_id, subject, text, key, end, scene, public, known_by = row
    return FactRecord(ext_id, subject, text, position_of(axis, key), None if end is None else position_of(axis, end),
                      scene, bool(public), known_by)


@dataclass(frozen=True)
class FactTable:
    """Every fact of one work, in story order (``pos_key``, then import order)."""

    axis: Axis
    rows: list[tuple]
    """Raw rows; records are built on first use (a scope reads a fraction of a large work)."""
    records: list[FactRecord | None]
    keys: np.ndarray
    ends: np.ndarray
    """End keys (exclusive); the largest int64 for a fact with no end."""
    public: np.ndarray
    scenes: np.ndarray
    """Scene row id (-1: none)."""
    told: dict[int, np.ndarray]
    """Character row id → indexes of the facts it is told of (``known_by``)."""


def _version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA data_version").fetchone()[0])


def load_facts(conn: sqlite3.Connection, cache: object, work_row_id: int, axis: Axis) -> FactTable:
    """The fact table of the work (cached on ``cache.facts`` by work and data version)."""
    tables: dict[int, tuple[tuple[int, int], FactTable]] = cache.facts  # type: ignore[attr-defined]
    stamp = (_version(conn), conn.total_changes)
    known = tables.get(work_row_id)
    if known is not None and known[0] == stamp:
        return known[1]
    # Two plain passes (facts with their subject and scene; every known_by pair), not a
    # correlated subquery per fact: the table is read in one go.
    rows = plain_rows(conn, _ROWS, (work_row_id,))
    cols = np.array([r[:5] for r in rows], dtype=np.int64).reshape(-1, 5)
    index = {int(fid): i for i, fid in enumerate(cols[:, 0])}
    told: dict[int, list[int]] = {}
    names: dict[int, list[str]] = {}
    for fact_id, character_id, name in plain_rows(conn, _KNOWN_BY, (work_row_id,)):
        told.setdefault(int(character_id), []).append(index[int(fact_id)])
        names.setdefault(index[int(fact_id)], []).append(name)
    rows = [(*r[5:], tuple(names.get(i, ()))) for i, r in enumerate(rows)]
    ends = np.where(cols[:, 2] < 0, _END, cols[:, 2])
    table = FactTable(axis, rows, [None] * len(rows), cols[:, 1].copy(), ends, cols[:, 3].astype(bool), cols[:, 4].copy(),
                      {c: np.array(sorted(ix), dtype=np.int64) for c, ix in told.items()})
    tables[work_row_id] = (stamp, table)
    return table


def scope_mask(table: FactTable, at_key: int, include_expired: bool, character_row_id: int | None,
               witnessed_scenes: np.ndarray | None) -> np.ndarray:
    """Which of the facts up to ``at_key`` (a prefix of the table, in story order) a scope
    allows: the rule of ``KnowledgeScope.facts``."""
    n = int(np.searchsorted(table.keys, at_key, side="right"))
    mask = np.ones(n, dtype=bool) if include_expired else at_key < table.ends[:n]
    if character_row_id is not None:
        known = table.public[:n].copy()
        if witnessed_scenes is not None and witnessed_scenes.size:
            known |= np.isin(table.scenes[:n], witnessed_scenes)
        told = table.told.get(character_row_id)
        if told is not None:
            known[told[told < n]] = True
        mask &= known
    return mask


def facts_in_scope(table: FactTable, at_key: int, include_expired: bool, character_row_id: int | None,
                   witnessed_scenes: np.ndarray | None) -> list[FactRecord]:
    """The facts a scope allows (the rule of ``KnowledgeScope.facts``), in story order."""
    mask = scope_mask(table, at_key, include_expired, character_row_id, witnessed_scenes)
    out: list[FactRecord] = []
    for i in np.flatnonzero(mask).tolist():
        record = table.records[i]
        if record is None:
            record = table.records[i] = _record(table.axis, table.rows[i])
        out.append(record)
    return out


__all__ = ["FactTable", "facts_in_scope", "load_facts", "scope_mask"]
