"""Facts of a scope from the in-memory columns equal what the SQL rule selects, for every
character and position of the sample world, and a write to the store is seen at once."""

from __future__ import annotations

import pytest

from incanon.canon import CanonStore
from incanon.canon.reads import select_facts
from incanon.sample import sample_world


@pytest.fixture
def store(tmp_path):
    s = CanonStore.open(tmp_path / "canon")
    s.import_world(sample_world())
    yield s
    s.close()


@pytest.mark.parametrize("include_expired", [False, True])
def test_columns_give_what_the_sql_rule_selects(store: CanonStore, include_expired: bool) -> None:
    names = [None, *(c.name for c in store.characters("lanterns"))]
    compared = 0
    for name in names:
        for at in ("1-1-1", "1-2", "1-3", "2-1", "2-3-2", "2-4", "3", "9"):
            scope = store.scope("lanterns", name, at)
            sql, params = scope._fact_cond(include_expired)
            expected = select_facts(scope._conn, scope.work.axis, sql, params)
            assert scope.facts(include_expired) == expected, (name, at)
            compared += len(expected)
    assert compared > 100


def test_a_reimport_is_seen_by_the_next_scope(store: CanonStore) -> None:
    before = store.scope("lanterns", None, "9").facts()
    world = sample_world()
    world.facts = world.facts[:3]
    world.probes = []
    store.import_world(world, replace=True)
    scope = store.scope("lanterns", None, "9")
    after = scope.facts(include_expired=True)
    sql, params = scope._fact_cond(True)
    assert len(before) > 3 and after == select_facts(scope._conn, scope.work.axis, sql, params)
    assert sorted(f.id for f in after) == sorted(f.id for f in world.facts)
