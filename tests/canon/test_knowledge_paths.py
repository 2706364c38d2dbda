"""Every path that decides what a character may know at a position gives the same answer.

The decision is ``CharacterKnowledge`` (``incanon.canon.knows``); its paths are the SQL of the
knowledge scope (listings, counts), numpy (vector search in story order, the fact table), the
Python filter of retrieved chunks (``retrieval.within``), the horizon the persona and the leak
audit read, and a card's ``gather``. On random worlds (``random_worlds``) imported the normal
way, for random character@positions, each chunk, fact, relation, name and entity is asked of
every path. A planted fault in any one path is caught (the tests at the end).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from incanon.canon import CanonStore, Position
from incanon.canon.horizon import Horizon
from incanon.canon.knows import CharacterKnowledge
from incanon.canon.names import norm
from incanon.canon.reads import select_facts
from incanon.canon.chunk_order import load_ordered
import incanon.canon.scope as scope_module
from incanon.canon.scope import IN_SCOPE, KnowledgeScope
from incanon.canon.vectors import VectorKind, _set_row
import incanon.cards.knowledge as card_module
from incanon.retrieval import RetrievedChunk, within

from .random_worlds import positions, random_world

_DIM = 8


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CanonStore]:
    s = CanonStore.open(tmp_path_factory.mktemp("paths") / "canon")
    yield s
    s.close()


_works = iter(range(10**9))


def _import(store: CanonStore, rng: random.Random) -> str:
    work = f"w{next(_works)}"
    world = random_world(rng, work)
    store.import_world(world)
    vectors = np.random.default_rng(rng.randrange(2**32))
    chunk_ids = [c.id for c in world.chunks]
    store.put_vectors(work, "chunk", chunk_ids, "rand", vectors.normal(size=(len(chunk_ids), _DIM)).astype(np.float32))
    names = [e.name for e in world.entities]
    store.put_vectors(work, "entity", names, "rand", vectors.normal(size=(len(names), _DIM)).astype(np.float32))
    return work


def disagreements(store: CanonStore, work: str, character: str, at: Position) -> list[str]:
    """Where any path differs from the decision for ``character`` at ``at`` (empty: none)."""
    found: list[str] = []

    def same(what: str, decided: object, path: str, got: object) -> None:
        if decided != got:
            found.append(f"{what} at {character}@{at}: decision {decided!r} but {path} {got!r}")

    scope = store.scope(work, character, at, witnessed_only=True)
    knows = scope.knowledge()
    assert isinstance(knows, CharacterKnowledge)
    horizon = Horizon(store, work, character, at)
    card = card_module.gather(store, work, character, str(at))
    summary = scope.describe()["visible"]
    me = knows.character

    # Chunks: SQL listing and count, numpy search, Python filter, horizon, card, labels.
    chunks = store.chunks(work)
    decided = {c.id for c in chunks if knows.may_know_chunk(c)}
    same("chunks", decided, "SQL chunk_ids", set(scope.chunk_ids()))
    same("chunks", decided, "SQL chunks", {c.id for c in scope.chunks()})
    same("chunks", len(decided), "describe", summary["chunks"])
    query = np.ones(_DIM, dtype=np.float32)
    same("chunks", decided, "numpy search", {h.item.id for h in scope.search_chunks(query, "rand", k=len(chunks))})
    # The numpy path alone (search_chunks also drops what the character perceived nothing of).
    ordered = load_ordered(scope._conn, scope._cache, _set_row(scope._conn, scope._wid, VectorKind.CHUNK, "rand"), scope._wid)
    by_row = {c.row_id: c.id for c in chunks}
    same("chunks", decided, "numpy path", {by_row[r] for r, _ in scope_module.search_ordered(
        ordered, query, len(chunks), at.key, perceived=knows.perceived_rows)})
    retrieved = [RetrievedChunk(c.id, c.text, 0.0, c.position, c.scene) for c in chunks]
    same("chunks", decided, "within", {c.id for c in within(scope, retrieved)})
    same("chunks", decided, "horizon", horizon.visible_chunks)
    same("chunks", {c.id for c in chunks} - decided, "horizon hidden", horizon.hidden_chunk_ids)
    same("chunks", decided, "card", {c.id for c in card.chunks})
    same("chunks", decided, "label", {c.id for c in chunks if scope.label(c.position, c.scene, chunk=c.id) == IN_SCOPE})
    # What of each chunk: the decision's view, through every listing that returns text.
    views = {c.id: knows.chunk_view(c) for c in chunks if c.id in decided}
    same("chunk texts", views, "SQL chunks", {c.id: c.text for c in scope.chunks()})
    same("chunk texts", views, "numpy search",
         {h.item.id: h.item.text for h in scope.search_chunks(query, "rand", k=len(chunks))})
    same("chunk texts", views, "card", {c.id: c.text for c in card.chunks})

    # Facts, current and with expired ones: SQL, numpy, horizon, card, count.
    facts = store.facts(work)
    for expired in (False, True):
        ids = [f.id for f in facts if knows.may_know_fact(f, include_expired=expired)]
        sql, params = scope._fact_cond(expired)
        same(f"facts(expired={expired})", sorted(ids), "SQL",
             sorted(f.id for f in select_facts(scope._conn, scope.work.axis, sql, params)))
        same(f"facts(expired={expired})", sorted(ids), "numpy", sorted(f.id for f in scope.facts(expired)))
    current = sorted(f.id for f in facts if knows.may_know_fact(f))
    same("facts", current, "knowledge.facts", sorted(f.id for f in knows.facts))
    same("facts", current, "horizon", sorted(f.id for f in horizon.facts))
    same("facts", sorted({f.id for f in facts} - set(current)), "horizon unknown",
         sorted(f.id for f in horizon.unknown_facts))
    same("facts", current, "card", sorted(f.id for f in card.facts))
    same("facts", len(current), "describe", summary["facts"])

    # Relations, current and ended ones: the scope (SQL candidates, then the decision), horizon, card.
    relations = store.relations(work)
    for ended in (False, True):
        decided_r = [r for r in relations if knows.may_know_relation(r, include_ended=ended)]
        same(f"relations(ended={ended})", decided_r, "scope", scope.relations(current_only=not ended))
    decided_r = [r for r in relations if knows.may_know_relation(r)]
    same("relations", decided_r, "horizon", horizon.relations())
    same("relations", decided_r, "horizon.knows_relation", [r for r in relations if horizon.knows_relation(r)])
    same("relations", [r for r in decided_r if r.source == me.name], "card ties", card.ties)
    same("relations", len(decided_r), "describe", summary["relations"])

    # Names and identities: the horizon's, and every name the card keys an entry by.
    every_name = {n for c in knows.characters for n in (c.name, *c.aliases)}
    every_name |= {n for e in knows.every_entity for n in (e.name, *e.aliases)}
    decided_n = {norm(n) for n in every_name if knows.knows_name(n)}
    same("names", decided_n, "horizon", {n for n in horizon.known_names if n in {norm(x) for x in every_name}})
    same("identities", knows.hidden_identities, "horizon", horizon.hidden_identities)
    keys = {norm(k) for a in card.acquaintances for k in a.keys}
    same("names", set(), "card keys not known", keys - decided_n)

    # Who the character knows of: the scope's entities, entity search, the card's entries.
    entities = store.entities(work)
    decided_e = [e.name for e in entities if knows.may_know_entity(e)]
    same("entities", decided_e, "scope", [e.name for e in scope.entities()])
    same("entities", set(decided_e), "entity search",
         {h.item.name for h in scope.search_entities(query, "rand", k=len(entities) or 1)})
    same("entities", len(decided_e), "describe", summary["entities"])
    people = [c.name for c in knows.characters if c.name != me.name and knows.knows_person(c)]
    people += [a for c in knows.characters for a in c.aliases
               if a in knows.hidden_identities.get(c.name, ()) and knows.knows_name(a)]
    same("people and entities", sorted(people + decided_e), "card", sorted(a.name for a in card.acquaintances))
    return found


def reader_disagreements(store: CanonStore, work: str, at: Position) -> list[str]:
    """The omniscient reader's paths: the time filter alone, in SQL, numpy and Python."""
    scope = store.scope(work, None, at, witnessed_only=True)
    chunks = store.chunks(work)
    decided = {c.id for c in chunks if c.position <= at}
    paths = {
        "SQL": set(scope.chunk_ids()),
        "numpy": {h.item.id for h in scope.search_chunks(np.ones(_DIM, dtype=np.float32), "rand", k=len(chunks))},
        "within": {c.id for c in within(scope, [RetrievedChunk(c.id, c.text, 0.0, c.position, c.scene) for c in chunks])},
    }
    facts = {f.id for f in store.facts(work) if f.position <= at and (f.valid_to is None or at < f.valid_to)}
    listed = {f.id for f in scope.facts()}
    return ([f"reader chunks at {at}: {p} {got!r} != {decided!r}" for p, got in paths.items() if got != decided]
            + ([f"reader facts at {at}: numpy {listed!r} != {facts!r}"] if listed != facts else []))


def _check(store: CanonStore, rng: random.Random, samples: int = 4) -> list[str]:
    work = _import(store, rng)
    cast = [c.name for c in store.characters(work)]
    found: list[str] = []
    for _ in range(samples):
        at = Position.parse(rng.choice(positions()))
        found += disagreements(store, work, rng.choice(cast), at)
        found += reader_disagreements(store, work, at)
    return found


@settings(max_examples=40, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(rng=st.randoms(use_true_random=False))
def test_every_path_gives_the_decision_on_random_worlds(store: CanonStore, rng: random.Random) -> None:
    assert _check(store, rng) == []


def test_the_random_worlds_exercise_every_rule(store: CanonStore) -> None:
    """The generator is not vacuous: over a few worlds, each rule both allows and hides."""
    seen: dict[str, set[bool]] = {k: set() for k in ("chunk", "fact", "relation", "name", "entity", "identity")}
    for seed in range(12):
        rng = random.Random(seed)
        work = _import(store, rng)
        for c in store.characters(work):
            for at in ("1-2-1", "2-1", "2"):
                knows = store.scope(work, c, at).knowledge()
                seen["chunk"] |= {knows.may_know_chunk(x) for x in store.chunks(work)}
                seen["fact"] |= {knows.may_know_fact(f) for f in store.facts(work)}
                seen["relation"] |= {knows.may_know_relation(r) for r in store.relations(work)}
                seen["entity"] |= {knows.may_know_entity(e) for e in store.entities(work)}
                seen["name"] |= {knows.knows_name(n) for o in store.characters(work) for n in (o.name, *o.aliases)}
                # A secret name of someone else: does the character know whose it is?
                seen["identity"] |= {s.alias not in knows.hidden_identities.get(o.name, set())
                                     for o in store.characters(work) if o.name != c.name for s in o.secret_names}
    assert all(v == {True, False} for v in seen.values()), seen


# -- planted faults: each path, made wrong, is caught ------------------------------------------
def _caught(store: CanonStore, seeds: int = 30) -> list[str]:
    for seed in range(seeds):
        found = _check(store, random.Random(1000 + seed), samples=6)
        if found:
            return found
    return []


def test_a_numpy_chunk_search_that_forgets_witnessing_is_caught(store: CanonStore, monkeypatch: pytest.MonkeyPatch) -> None:
    import incanon.canon.scope as scope_module

    real = scope_module.search_ordered
    monkeypatch.setattr(scope_module, "search_ordered", lambda chunks, q, k, at, witnessed=None, perceived=None: real(chunks, q, k, at))
    found = _caught(store)
    assert found and any("numpy path" in f for f in found)


def test_a_fact_table_that_keeps_expired_facts_is_caught(store: CanonStore, monkeypatch: pytest.MonkeyPatch) -> None:
    import incanon.canon.scope as scope_module

    real = scope_module.facts_in_scope
    monkeypatch.setattr(scope_module, "facts_in_scope", lambda table, at, _expired, cid, w: real(table, at, True, cid, w))
    found = _caught(store)
    assert found and any("numpy" in f and "facts" in f for f in found)


def test_a_sql_chunk_rule_without_witnessing_is_caught(store: CanonStore, monkeypatch: pytest.MonkeyPatch) -> None:
    real = KnowledgeScope._chunk_cond
    monkeypatch.setattr(KnowledgeScope, "_chunk_cond", lambda self, witnessed_only: real(self, False))
    found = _caught(store)
    assert found and any("SQL chunk_ids" in f for f in found)


def test_a_sql_fact_rule_without_known_by_is_caught(store: CanonStore, monkeypatch: pytest.MonkeyPatch) -> None:
    real = KnowledgeScope._fact_cond

    def no_known_by(self: KnowledgeScope, include_expired: bool):  # type: ignore[no-untyped-def]
        sql, params = real(self, include_expired)
        if self.character is None:
            return sql, params
        return sql.replace(" OR EXISTS (SELECT 1 FROM fact_known_by kb WHERE kb.fact_id = f.id AND kb.character_id = ?)",
                           ""), params[:-1]

    monkeypatch.setattr(KnowledgeScope, "_fact_cond", no_known_by)
    found = _caught(store)
    assert found and any("SQL" in f and "facts" in f for f in found)


def test_a_python_chunk_filter_by_time_alone_is_caught(store: CanonStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(KnowledgeScope, "allows_chunk", lambda self, chunk: self.is_known_time(chunk.position))
    found = _caught(store)
    assert found and any("within" in f for f in found)


def test_relation_candidates_that_drop_dated_relations_are_caught(store: CanonStore,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    real = KnowledgeScope._relation_cond

    def undated_only(self: KnowledgeScope, current_only: bool):  # type: ignore[no-untyped-def]
        sql, params = real(self, current_only)
        return sql + " AND r.from_key IS NULL", params

    monkeypatch.setattr(KnowledgeScope, "_relation_cond", undated_only)
    found = _caught(store)
    assert found and any(f.startswith("relations") and "scope" in f for f in found)


def test_a_card_that_keys_every_alias_is_caught(store: CanonStore, monkeypatch: pytest.MonkeyPatch) -> None:
    import incanon.cards.knowledge as card_module

    monkeypatch.setattr(card_module, "_keys", lambda knows, forms: forms + [
        a for c in knows.characters if norm(c.name) in {norm(f) for f in forms} for a in c.aliases])
    found = _caught(store)
    assert found and any("card keys" in f for f in found)


def test_a_card_with_its_old_acquaintance_rule_is_caught(store: CanonStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """The card used to admit someone only when met, told of or named in its text: it left out
    the other end of the character's own relation held from the start (the Provost's clerk)."""
    real = card_module.gather

    def old_rule(*args: object) -> card_module.Knowledge:
        card = real(*args)  # type: ignore[arg-type]
        met = {p for s in card.scenes for p in s.participants} | {f.subject for f in card.facts}
        card.acquaintances = [a for a in card.acquaintances if a.kind == "entity" or a.name in met
                              or any(norm(k) in card.names.attested for k in a.keys)]
        kept = {a.name for a in card.acquaintances}
        card.ties = [r for r in card.ties if r.target in kept]
        return card

    monkeypatch.setattr(card_module, "gather", old_rule)
    found = _caught(store)
    assert found and any("card" in f for f in found)


def test_a_decision_that_forgets_who_was_told_is_caught(store: CanonStore, monkeypatch: pytest.MonkeyPatch) -> None:
    def untold(self: CharacterKnowledge, fact, *, include_expired: bool = False) -> bool:  # type: ignore[no-untyped-def]
        if not self.may_know_time(fact.position):
            return False
        if not include_expired and fact.valid_to is not None and fact.valid_to <= self.at:
            return False
        return fact.public or fact.scene in self.witnessed_ids

    monkeypatch.setattr(CharacterKnowledge, "may_know_fact", untold)
    found = _caught(store)
    assert found and any("facts" in f for f in found)


def test_the_store_is_not_kept_alive_by_the_persona_cache(tmp_path: Path) -> None:
    import gc
    import weakref

    from incanon.canon.persona import horizon_at

    s = CanonStore.open(tmp_path / "c")
    work = _import(s, random.Random(7))
    horizon_at(s, work, s.characters(work)[0], Position.parse("1-2"))
    alive = weakref.ref(s)
    s.close()
    del s
    gc.collect()
    assert alive() is None
