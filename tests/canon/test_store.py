"""Store lookups: works, characters by alias, positions and time points, listings."""

from __future__ import annotations

from pathlib import Path

import pytest

from incanon.canon import Axis, CanonStore, Position
from incanon.errors import InputError, NotFoundError


def test_store_is_a_directory(tmp_path: Path) -> None:
    store = CanonStore.open(tmp_path / "new" / "canon")
    assert store.db_path == tmp_path / "new" / "canon" / "canon.sqlite"
    assert store.db_path.is_file()
    store.close()
    file = tmp_path / "file"
    file.write_text("x")
    with pytest.raises(InputError, match="is a file; a store is a directory"):
        CanonStore.open(file)


def test_works_and_counts(store: CanonStore) -> None:
    [work] = store.works()
    assert (work.id, work.axis, work.books["2"]) == ("harbor", Axis.CHAPTER, "Storm")
    assert store.counts("harbor") == {
        "characters": 4, "scenes": 5, "chunks": 6, "entities": 3, "relations": 4,
        "facts": 6, "probes": 2, "messages": 4,
    }


def test_unknown_work(store: CanonStore) -> None:
    with pytest.raises(NotFoundError, match=r"unknown work 'harbour'.*works: harbor.*did you mean 'harbor'"):
        store.work("harbour")


@pytest.mark.parametrize("name", ["Alice Reed", "alice reed", "ALICE", "miss reed", "  Miss   Reed "])
def test_character_by_name_or_alias(store: CanonStore, name: str) -> None:
    alice = store.character("harbor", name)
    assert alice.name == "Alice Reed"
    assert alice.aliases == ("Alice", "Miss Reed")
    assert [t.label for t in alice.time_points] == ["First night", "End of book 1", "After the storm"]


def test_unknown_character_lists_known_and_suggests(store: CanonStore) -> None:
    with pytest.raises(NotFoundError) as info:
        store.character("harbor", "Robbert")
    message = str(info.value)
    assert "unknown character 'Robbert'" in message
    # The hint reveals nothing later: characters there from the start, names in use then.
    assert "known from the start: Alice Reed, Bob" in message and "2 more appear later" in message
    assert "Cara" not in message and "Dan" not in message
    assert "did you mean 'Robert'?" in message


def test_characters_in_import_order(store: CanonStore) -> None:
    assert [c.name for c in store.characters("harbor")] == ["Alice Reed", "Bob", "Cara", "Dan"]
    assert store.characters("harbor")[2].first_position == Position.parse("1-2")


@pytest.mark.parametrize(
    "text, expected",
    [("end of book 1", "1"), ("END OF BOOK 1", "1"), ("first night", "1-1-1"), ("2-3", "2-3"), ("2-3-4", "2-3-4")],
)
def test_resolve_position_with_time_points(store: CanonStore, text: str, expected: str) -> None:
    assert store.resolve_position("harbor", text, "Alice") == Position.parse(expected)


def test_resolve_position_without_character(store: CanonStore) -> None:
    assert store.resolve_position("harbor", "2-5") == Position.parse("2-5")
    assert store.resolve_position("harbor", Position.parse("1")) == Position.parse("1")
    with pytest.raises(NotFoundError, match="unknown story position 'end of book 1': expected a position"):
        store.resolve_position("harbor", "end of book 1")


def test_unknown_time_point_lists_points_and_forms(store: CanonStore) -> None:
    with pytest.raises(NotFoundError) as info:
        store.resolve_position("harbor", "the wedding", "alice")
    message = str(info.value)
    assert "'the wedding'" in message
    # Positions only: a label may tell what happens there.
    assert "at 1-1-1, 1, 2-3" in message and "After the storm" not in message
    assert "book-chapter[-scene]" in message


def test_position_on_the_wrong_axis(store: CanonStore) -> None:
    with pytest.raises(InputError, match="is a date position but work 'harbor' uses the chapter axis"):
        store.resolve_position("harbor", "2024-03-07", "Alice")


def test_positions_come_back_as_positions(store: CanonStore) -> None:
    """Keys stored as integers invert to the same positions ("end of" parts included)."""
    scenes = store.scenes("harbor")
    assert [str(s.position) for s in scenes] == ["1-1-1", "1-2", "2-1-1", "2-3", "3-1"]
    assert scenes[1].position.scene is None  # "1-2" = end of chapter 2 of book 1
    facts = store.facts("harbor")
    engaged = next(f for f in facts if f.id == "f4")
    assert engaged.valid_to == Position.parse("2-1")
    assert next(e for e in store.entities("harbor") if e.name == "Lighthouse").position is None


def test_listings_are_in_story_order(store: CanonStore) -> None:
    assert [c.id for c in store.chunks("harbor")] == ["c1", "c2", "c3", "c4", "c5", "c6"]
    assert [f.id for f in store.facts("harbor")] == ["f1", "f6", "f2", "f3", "f4", "f5"]
    assert [r.type for r in store.relations("harbor")] == ["friend", "rival", "member_of", "neighbour"]
    assert store.relations("harbor")[2].target == "Harbor Guild"  # imported as "the Guild"
    s1 = store.scene("harbor", "s1")
    assert (s1.participants, s1.speakers, s1.location) == (("Alice Reed", "Bob"), ("Alice Reed", "Bob"), "Pier")
    assert store.probes("harbor")[1].data_type == "future"


def test_store_messages_are_omniscient(store: CanonStore) -> None:
    msgs = store.messages("harbor", "s1")
    assert [m.thought for m in msgs] == ["", "He looks tired.", "A stranger."]


def test_unknown_scene(store: CanonStore) -> None:
    with pytest.raises(NotFoundError, match=r"unknown scene 's0'.*known: s1, s2"):
        store.scene("harbor", "s0")


def test_records_to_dict(store: CanonStore) -> None:
    alice = store.character("harbor", "alice").to_dict()
    assert alice["first_position"] == "1-1-1"
    assert alice["time_points"][1] == {"label": "End of book 1", "position": "1", "description": "Settled in.",
                                        "profile": "", "personality": ""}
    assert "row_id" not in alice
    assert store.work("harbor").to_dict()["axis"] == "chapter"


def test_reopen_keeps_data(store: CanonStore) -> None:
    path = store.path
    store.close()
    with CanonStore.open(path) as again:
        assert again.counts("harbor")["scenes"] == 5
