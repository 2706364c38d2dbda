"""Knowledge scope: time, witnessing, thoughts, facts, relations, entities, and their edges.

The harbor world (see fixtures.py): scenes s1 1-1-1 (Alice, Bob), s2 1-2 (Bob, Cara),
s3 2-1-1 (Alice, Cara), s4 2-3 (all three), s5 3-1 (Alice, Dan).
"""

from __future__ import annotations

import pytest

from incanon.canon import CanonStore, Position, World
from incanon.errors import InputError, NotFoundError

from .fixtures import harbor_data


def _ids(records) -> list[str]:  # type: ignore[no-untyped-def]
    return [r.id for r in records]


# -- time ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "at, pos, known",
    [
        ("1-2", "1-2", True),  # the same chapter is past, not future
        ("1-2", "1-2-5", True),  # a scene of chapter 2 is before "the end of chapter 2"
        ("1-2", "1-3", False),
        ("1-2", "1", False),  # the end of book 1 is after chapter 2
        ("1-2-1", "1-2", False),
        ("1", "1-9-9", True),
        ("2-1", "2-1-1", True),
    ],
)
def test_is_known_time(store: CanonStore, at: str, pos: str, known: bool) -> None:
    assert store.scope("harbor", "Alice", at).is_known_time(pos) is known


def test_wrong_axis_is_an_error(store: CanonStore) -> None:
    scope = store.scope("harbor", "Alice", "1")
    with pytest.raises(InputError, match="not on work 'harbor'"):
        scope.is_known_time("2024-01-01")


def test_scope_resolves_alias_and_time_point(store: CanonStore) -> None:
    scope = store.scope("harbor", "miss reed", "End Of Book 1")
    assert scope.character is not None and scope.character.name == "Alice Reed"
    assert scope.at == Position.parse("1")
    with pytest.raises(NotFoundError, match="unknown character 'Zed'"):
        store.scope("harbor", "Zed", "1")


# -- witnessing and scenes ---------------------------------------------------------------------
def test_witnessed(store: CanonStore) -> None:
    alice = store.scope("harbor", "Alice", "1")
    assert alice.witnessed("s1") is True
    assert alice.witnessed("s2") is False  # missed
    assert alice.witnessed("s4") is False  # future, though she will be there
    reader = store.scope("harbor", None, "1")
    assert reader.witnessed("s2") is True
    assert reader.witnessed("s4") is False
    with pytest.raises(NotFoundError, match="unknown scene 'zz'"):
        alice.witnessed("zz")


def test_scenes_all_or_witnessed(store: CanonStore) -> None:
    assert _ids(store.scope("harbor", "Alice", "1").scenes()) == ["s1", "s2"]
    assert _ids(store.scope("harbor", "Alice", "1").scenes(witnessed_only=True)) == ["s1"]
    strict = store.scope("harbor", "Alice", "2-3", witnessed_only=True)
    assert _ids(strict.scenes()) == ["s1", "s3", "s4"]
    assert _ids(strict.scenes(witnessed_only=False)) == ["s1", "s2", "s3", "s4"]
    # The omniscient reader has nothing to miss.
    assert _ids(store.scope("harbor", None, "2-3", witnessed_only=True).scenes()) == ["s1", "s2", "s3", "s4"]


def test_future_and_missed_scenes(store: CanonStore) -> None:
    alice = store.scope("harbor", "Alice", "2-3")
    assert _ids(alice.future_scenes()) == ["s5"]
    assert _ids(alice.missed_scenes()) == ["s2"]
    assert _ids(store.scope("harbor", "Dan", "3-1").missed_scenes()) == ["s1", "s2", "s3", "s4"]
    assert store.scope("harbor", None, "3-1").missed_scenes() == []
    assert _ids(store.scope("harbor", None, "1-1-1").future_scenes()) == ["s2", "s3", "s4", "s5"]


# -- chunks ----------------------------------------------------------------------------------
def test_chunks_cut_off_at_the_position(store: CanonStore) -> None:
    assert _ids(store.scope("harbor", "Alice", "1").chunks()) == ["c1", "c2", "c3"]
    assert _ids(store.scope("harbor", "Alice", "1-2").chunks()) == ["c1", "c2"]


def test_chunks_witnessed_only(store: CanonStore) -> None:
    alice = store.scope("harbor", "Alice", "2-3")
    # c2 belongs to s2, which Alice missed; c3 belongs to no scene and stays.
    assert _ids(alice.chunks(witnessed_only=True)) == ["c1", "c3", "c4", "c5"]
    assert alice.chunk_ids(witnessed_only=True) == ["c1", "c3", "c4", "c5"]
    assert alice.chunk_ids() == ["c1", "c2", "c3", "c4", "c5"]
    bob = store.scope("harbor", "Robert", "2-3", witnessed_only=True)
    assert bob.chunk_ids() == ["c1", "c2", "c3", "c5"]
    assert bob.chunk_ids(witnessed_only=False) == ["c1", "c2", "c3", "c4", "c5"]


# -- messages and thoughts -------------------------------------------------------------------
def test_only_own_thoughts_are_visible(store: CanonStore) -> None:
    msgs = store.scope("harbor", "Alice", "1").messages("s1")
    assert [(m.speaker, m.thought) for m in msgs] == [
        ("Environment", ""), ("Alice Reed", "He looks tired."), ("Bob", ""),
    ]
    assert msgs[2].speech == "Welcome." and msgs[2].action == "waves"  # speech and action stay
    bob = store.scope("harbor", "Bob", "1").messages("s1")
    assert [m.thought for m in bob] == ["", "", "A stranger."]
    assert [m.thought for m in store.scope("harbor", "Bob", "1").messages("s2")] == [""]


def test_messages_of_missed_or_future_scenes_are_hidden(store: CanonStore) -> None:
    alice = store.scope("harbor", "Alice", "1")
    assert alice.messages("s2") == []  # missed
    assert store.scope("harbor", "Alice", "1-1").messages("s1") != []
    assert store.scope("harbor", "Bob", "1-1-0").messages("s1") == []  # not yet happened


def test_omniscient_reader_sees_every_thought(store: CanonStore) -> None:
    msgs = store.scope("harbor", None, "1").messages("s1")
    assert [m.thought for m in msgs] == ["", "He looks tired.", "A stranger."]


# -- entities and relations --------------------------------------------------------------------
@pytest.mark.parametrize(
    "at, names",
    [("1-1", ["Lighthouse"]), ("1-2", ["Lighthouse", "Harbor Guild"]), ("2-3", ["Lighthouse", "Harbor Guild", "Great Storm"])],
)
def test_entities_by_first_position(store: CanonStore, at: str, names: list[str]) -> None:
    assert [e.name for e in store.scope("harbor", "Cara", at).entities()] == names


@pytest.mark.parametrize(
    "at, current, started",
    [
        ("1-1", ["friend"], ["friend"]),  # member_of starts at 1-2; Dan is not introduced yet
        ("2-2", ["friend", "member_of"], ["friend", "member_of"]),
        ("2-3", ["rival", "member_of"], ["friend", "rival", "member_of"]),  # valid_to is exclusive
        ("2-3-1", ["friend", "member_of"], ["friend", "member_of"]),  # a scene of 2-3 is before "end of 2-3"
        ("3-1", ["rival", "member_of", "neighbour"], ["friend", "rival", "member_of", "neighbour"]),
    ],
)
def test_relations_in_force_over_time(store: CanonStore, at: str, current: list[str], started: list[str]) -> None:
    reader = store.scope("harbor", None, at)
    assert [r.type for r in reader.relations()] == current
    assert [r.type for r in reader.relations(current_only=False)] == started
    # The world as it stands is the same whoever asks; it is not what a character knows.
    assert store.scope("harbor", "Alice", at).relations_in_force() == reader.relations()


@pytest.mark.parametrize(
    "at, current, started",
    [
        ("1-1", ["friend"], ["friend"]),  # her own, held from the start
        # Bob joins the guild at 1-2 in a scene Alice missed, and no fact she knows says so.
        ("2-2", ["friend"], ["friend"]),
        ("2-3", ["rival"], ["friend", "rival"]),  # the rivalry begins in s4, which she witnesses
        ("2-3-1", ["friend"], ["friend"]),
        ("3-1", ["rival", "neighbour"], ["friend", "rival", "neighbour"]),  # Dan is introduced at 3-1
    ],
)
def test_relations_a_character_knows(store: CanonStore, at: str, current: list[str], started: list[str]) -> None:
    scope = store.scope("harbor", "Alice", at)
    assert [r.type for r in scope.relations()] == current
    assert [r.type for r in scope.relations(current_only=False)] == started
    knows = scope.knowledge()
    assert [r for r in scope.relations_in_force() if knows.may_know_relation(r)] == scope.relations()


def test_bob_knows_his_membership_from_the_scene_he_was_at(store: CanonStore) -> None:
    assert [r.type for r in store.scope("harbor", "Bob", "2-2").relations()] == ["friend", "member_of"]


# -- facts -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "who, at, facts",
    [
        ("Alice", "1-1-1", ["f1"]),  # witnessed s1; f6 is known to nobody
        ("Alice", "1", ["f1", "f3", "f4"]),  # f2 was in s2 (missed); f3 public; f4 known_by
        ("Alice", "2-1-1", ["f1", "f3", "f4"]),  # f4 valid to 2-1 (exclusive): 2-1-1 is before it
        ("Alice", "2-1", ["f1", "f3"]),  # ... and at 2-1 it has expired
        ("Alice", "2-3", ["f1", "f3", "f5"]),
        ("Bob", "1", ["f1", "f2", "f3"]),
        ("Cara", "1", ["f2", "f3"]),
        ("Dan", "3-1", ["f3"]),
        (None, "1", ["f1", "f6", "f2", "f3", "f4"]),  # omniscient: time only
    ],
)
def test_facts(store: CanonStore, who: str | None, at: str, facts: list[str]) -> None:
    assert _ids(store.scope("harbor", who, at).facts()) == facts


def test_expired_facts_on_request(store: CanonStore) -> None:
    scope = store.scope("harbor", "Alice", "2-2")
    assert "f4" not in _ids(scope.facts())
    assert "f4" in _ids(scope.facts(include_expired=True))
    knows = scope.knowledge()
    f4 = next(f for f in store.facts("harbor") if f.id == "f4")
    assert knows.may_know_fact(f4) is False and knows.may_know_fact(f4, include_expired=True) is True


def test_fact_of_a_later_witnessed_scene_is_not_known_early(empty_store: CanonStore) -> None:
    data = harbor_data()
    data["facts"].append({"id": "f7", "subject": "Cara", "text": "Cara was born here.", "position": "1-1", "scene": "s4"})
    empty_store.import_world(World.model_validate(data))
    assert "f7" not in _ids(empty_store.scope("harbor", "Alice", "2-2").facts())
    assert "f7" in _ids(empty_store.scope("harbor", "Alice", "2-3").facts())


def test_known_by_learns_from_the_fact_position(store: CanonStore) -> None:
    assert "f4" not in _ids(store.scope("harbor", "Alice", "1-2").facts())
    assert "f4" in _ids(store.scope("harbor", "Alice", "1-3").facts())


# -- summary ---------------------------------------------------------------------------------
def test_describe(store: CanonStore) -> None:
    summary = store.scope("harbor", "Alice", "End of book 1").describe()
    assert summary == {
        "work": "harbor",
        "character": "Alice Reed",
        "at": "1",
        "witnessed_only": False,
        # Chunks: a character sees only those of scenes it witnessed; the missed scene's chunk is
        # hidden as "before now, not witnessed", never counted as visible.
        # Relations: what she knows (her friendship), not every one in force (Bob's membership
        # began in the scene she missed).
        "visible": {"scenes": 2, "witnessed_scenes": 1, "chunks": 2, "facts": 3, "entities": 2, "relations": 1},
        "hidden": {"future_scenes": 3, "missed_scenes": 1, "chunks": 4, "chunks_after_now": 3,
                   "chunks_not_witnessed": 1, "facts": 3, "entities": 1, "relations": 3},
    }
    reader = store.scope("harbor", None, "3").describe()
    assert reader["character"] is None
    # At the end only what has stopped being true is out of view: f4 and the friendship.
    assert reader["hidden"] == {"future_scenes": 0, "missed_scenes": 0, "chunks": 0, "chunks_after_now": 0,
                                "chunks_not_witnessed": 0, "facts": 1, "entities": 0, "relations": 1}
