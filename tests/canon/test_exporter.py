"""Export gives back what was imported, and re-imports to itself."""

from __future__ import annotations

from pathlib import Path

from incanon.canon import CanonStore, World, load_world_file, write_world_file

from .fixtures import canonical_harbor_data, harbor_world


def test_canonical_world_round_trips_exactly(store: CanonStore) -> None:
    assert store.export_world("harbor") == World.model_validate(canonical_harbor_data())


def test_import_export_import_is_stable(store: CanonStore, tmp_path: Path) -> None:
    first = store.export_world("harbor")
    other = CanonStore.open(tmp_path / "other")
    other.import_world(first)
    assert other.export_world("harbor") == first
    other.close()


def test_aliases_are_exported_as_canonical_names(store: CanonStore) -> None:
    world = store.export_world("harbor")
    rel = world.relations[1]
    assert (rel.source, rel.target) == ("Alice Reed", "Bob")  # imported as "Alice" / "Robert"
    assert world.facts[3].known_by == ["Alice Reed"]  # imported as "Alice"


def test_lists_keep_their_order_and_every_field(store: CanonStore) -> None:
    original = harbor_world()
    world = store.export_world("harbor")
    assert [c.id for c in world.chunks] == [c.id for c in original.chunks]
    assert world.scenes[0].messages == original.scenes[0].messages  # thoughts included
    assert world.characters[0].time_points == original.characters[0].time_points
    assert world.work == original.work
    assert world.probes == original.probes


def test_date_axis_round_trip(empty_store: CanonStore) -> None:
    world = World.model_validate({
        "work": {"id": "diary", "title": "A Diary", "axis": "date"},
        "characters": [{"name": "Ann", "time_points": [{"label": "new year", "position": "2024-01-01"}]}],
        "scenes": [{"id": "d1", "position": "2023-12-31", "date": "2023-12-31", "participants": ["Ann"]}],
        "chunks": [{"id": "k1", "position": "2024-02-29", "text": "Leap day."}],
        "facts": [{"id": "x", "subject": "Ann", "text": "Ann moved.", "position": "2024-01-02",
                   "valid_to": "2024-06-01", "public": True}],
    })
    empty_store.import_world(world)
    assert empty_store.export_world("diary") == world


def test_file_round_trip_is_atomic(store: CanonStore, tmp_path: Path) -> None:
    target = tmp_path / "out" / "harbor.json"
    write_world_file(store.export_world("harbor"), target)
    assert load_world_file(target) == store.export_world("harbor")
    # Only the target is left behind: the temporary file was renamed onto it.
    assert [p.name for p in target.parent.iterdir()] == ["harbor.json"]
