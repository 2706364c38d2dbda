"""Schema: pragmas, migrations from older versions, refusal of newer ones, indexes used."""

from __future__ import annotations

from pathlib import Path

import pytest

from incanon.canon import MIGRATIONS, SCHEMA_VERSION, CanonStore
from incanon.canon.schema import DB_NAME, connect, migrate, user_version
from incanon.errors import InputError

from .fixtures import harbor_world


def test_pragmas(empty_store: CanonStore) -> None:
    conn = empty_store._conn
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] > 0
    assert empty_store.schema_version == SCHEMA_VERSION == len(MIGRATIONS)


def test_older_database_is_migrated(tmp_path: Path) -> None:
    root = tmp_path / "old"
    root.mkdir()
    conn = connect(root / DB_NAME)
    assert migrate(conn, source="old", migrations=MIGRATIONS[:1]) == 1
    conn.execute("INSERT INTO works (slug, title, axis, world_schema, imported_at)"
                 " VALUES ('w', 'W', 'chapter', 1, 'then')")
    assert conn.execute("SELECT name FROM sqlite_master WHERE name = 'vector_sets'").fetchone() is None
    conn.close()

    with CanonStore.open(root) as store:
        assert store.schema_version == SCHEMA_VERSION
        assert [w.id for w in store.works()] == ["w"]  # data kept
        tables = {r[0] for r in store._conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert {"vector_sets", "vectors"} <= tables


def test_newer_database_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "new"
    CanonStore.open(root).close()
    conn = connect(root / DB_NAME)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 5}")
    conn.close()
    with pytest.raises(InputError) as info:
        CanonStore.open(root)
    message = str(info.value)
    assert f"version {SCHEMA_VERSION + 5}" in message
    assert f"(version {SCHEMA_VERSION})" in message
    assert "upgrade incanon" in message


def test_failed_migration_rolls_back(tmp_path: Path) -> None:
    conn = connect(tmp_path / "x.sqlite")

    def broken(c):  # type: ignore[no-untyped-def]
        c.execute("CREATE TABLE half (x)")
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        migrate(conn, source="x", migrations=[MIGRATIONS[0], broken])
    assert user_version(conn) == 1
    assert conn.execute("SELECT name FROM sqlite_master WHERE name = 'half'").fetchone() is None


def _plan(store: CanonStore, sql: str, params: list) -> str:  # type: ignore[type-arg]
    return " | ".join(r[3] for r in store._conn.execute(f"EXPLAIN QUERY PLAN {sql}", params))


def test_scope_queries_use_the_position_indexes(empty_store: CanonStore) -> None:
    empty_store.import_world(harbor_world())
    scope = empty_store.scope("harbor", "Alice", "1")
    for table, alias, cond, index in [
        ("chunks", "k", scope._chunk_cond(True), "chunks_work_pos"),
        ("facts", "f", scope._fact_cond(False), "facts_work_pos"),
        ("scenes", "s", scope._scene_cond(True), "scenes_work_pos"),
    ]:
        plan = _plan(empty_store, f"SELECT {alias}.id FROM {table} {alias} WHERE {cond[0]}", cond[1])
        assert index in plan, plan
        assert f"SCAN {alias}" not in plan.replace(f"SCAN {alias} USING", ""), plan
    plan = _plan(empty_store, f"SELECT f.id FROM facts f WHERE {scope._fact_cond(False)[0]}", scope._fact_cond(False)[1])
    # The witnessing and known_by joins are index lookups too, never scans.
    assert "USING INDEX participants_character" in plan, plan
    assert "SEARCH kb USING PRIMARY KEY" in plan, plan
