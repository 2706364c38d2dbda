"""Import validation: every bad reference is reported by JSON path, and nothing is written."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from incanon.canon import CanonStore, World
from incanon.errors import InputError

from .fixtures import harbor_data

Data = dict[str, Any]


def _set(path: str, value: Any) -> Callable[[Data], None]:
    """A mutation setting ``a.b[2].c`` style paths in the world data."""

    def apply(data: Data) -> None:
        target: Any = data
        parts = path.replace("]", "").replace("[", ".").split(".")
        for part in parts[:-1]:
            target = target[int(part)] if part.isdigit() else target[part]
        last = parts[-1]
        target[int(last) if last.isdigit() else last] = value

    return apply


CASES: list[tuple[str, Callable[[Data], None], list[str]]] = [
    (
        "unknown participant",
        _set("scenes[3].participants[1]", "Zed"),
        ["scenes[3].participants[1]: unknown character 'Zed'", "known: Alice Reed, Bob, Cara, Dan"],
    ),
    (
        "did you mean",
        _set("scenes[0].participants[1]", "Bobb"),
        ["scenes[0].participants[1]", "did you mean 'Bob'?"],
    ),
    (
        "speaker not a participant",
        _set("scenes[1].speakers[0]", "Alice"),
        ["scenes[1].speakers[0]: speaker 'Alice' is not among the participants"],
    ),
    (
        "message speaker not present",
        _set("scenes[1].messages[0].speaker", "Dan"),
        ["scenes[1].messages[0].speaker: 'Dan' speaks but is not among the participants"],
    ),
    (
        "duplicate participant (via alias)",
        _set("scenes[0].participants[1]", "alice"),
        ["scenes[0].participants[1]: 'alice' is listed twice"],
    ),
    (
        "chunk axis mismatch",
        _set("chunks[2].position", "2024-03-07"),
        ["chunks[2].position: '2024-03-07' is a date position", "uses the chapter axis"],
    ),
    (
        "unknown chunk scene",
        _set("chunks[0].scene", "s9"),
        ["chunks[0].scene: unknown scene 's9'", "known: s1, s2, s3, s4, s5"],
    ),
    ("duplicate chunk id", _set("chunks[1].id", "c1"), ["chunks[1].id: duplicate chunk id 'c1'"]),
    ("duplicate scene id", _set("scenes[2].id", "s1"), ["scenes[2].id: duplicate scene id 's1'"]),
    ("duplicate fact id", _set("facts[5].id", "f1"), ["facts[5].id: duplicate fact id 'f1'"]),
    ("empty chunk id", _set("chunks[0].id", " "), ["chunks[0].id: chunk id must not be empty"]),
    (
        "alias shared by two characters",
        _set("characters[2].aliases", ["Robert"]),
        ["characters[2].aliases[0]: 'Robert' is already a name of 'Bob'"],
    ),
    (
        "alias repeating own name",
        _set("characters[1].aliases", ["BOB"]),
        ["characters[1].aliases[0]: 'BOB' repeats a name of the same character"],
    ),
    (
        "duplicate time point label",
        _set("characters[0].time_points[1].label", "first NIGHT"),
        ["characters[0].time_points[1].label: duplicate time point label"],
    ),
    (
        "time point on the wrong axis",
        _set("characters[0].time_points[0].position", "2020-01-01"),
        ["characters[0].time_points[0].position", "date position"],
    ),
    (
        "unknown relation target",
        _set("relations[2].target", "Guildhall"),
        ["relations[2].target: unknown character or entity 'Guildhall'", "entities: Lighthouse"],
    ),
    (
        "relation ends before it starts",
        _set("relations[2].valid_to", "1-1"),
        ["relations[2].valid_to: '1-1' must come after valid_from '1-2'"],
    ),
    (
        "entity named like a character",
        _set("entities[0].name", "cara"),
        ["entities[0].name: 'cara' is already a character name"],
    ),
    (
        "entity alias clash",
        _set("entities[2].aliases", ["Lighthouse"]),
        ["entities[2].aliases[0]: 'Lighthouse' is already a name of entity 'Lighthouse'"],
    ),
    ("unknown fact subject", _set("facts[0].subject", "Eve"), ["facts[0].subject: unknown character or entity 'Eve'"]),
    ("unknown fact scene", _set("facts[0].scene", "nope"), ["facts[0].scene: unknown scene 'nope'"]),
    ("unknown known_by", _set("facts[3].known_by", ["Alice", "Ghost"]), ["facts[3].known_by[1]: unknown character 'Ghost'"]),
    (
        "fact expires before it starts",
        _set("facts[3].valid_to", "1-3"),
        ["facts[3].valid_to: '1-3' must come after position '1-3'"],
    ),
    ("bad scene date", _set("scenes[0].date", "2020-13-01"), ["scenes[0].date: invalid date '2020-13-01'"]),
    ("unknown probe character", _set("probes[0].character", "Zed"), ["probes[0].character: unknown character 'Zed'"]),
    ("unknown probe event", _set("probes[1].event", "s42"), ["probes[1].event: unknown scene or fact id 's42'"]),
    ("empty work id", _set("work.id", ""), ["work.id: work id must not be empty"]),
    ("newer world format", _set("schema_version", 99), ["world format version 99 is newer"]),
    (
        "time points in reverse order",
        _set("characters[0].time_points[2].position", "1-1"),
        ["characters[0].time_points[2].position: '1-1' comes before the previous time point 'End of book 1'"],
    ),
    (
        "first appearance after the end of the story",
        _set("characters[3].first_position", "9-9-9"),
        ["characters[3].first_position: '9-9-9' is after the end of the story", "'3-1'"],
    ),
    ("scene at 0-0-0", _set("scenes[0].position", "0-0-0"), ["scenes[0].position: '0-0-0' is before the story begins"]),
    ("scene at 0", _set("scenes[4].position", "0"), ["scenes[4].position: '0' is before the story begins"]),
    (
        "relation from a character to itself",
        _set("relations[0].target", "alice"),
        ["relations[0].target: a relation from 'Alice Reed' to itself"],
    ),
]


@pytest.mark.parametrize("mutate, pieces", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_reference_is_reported_and_nothing_written(
    empty_store: CanonStore, mutate: Callable[[Data], None], pieces: list[str]
) -> None:
    data = harbor_data()
    mutate(data)
    world = World.model_validate(data)
    with pytest.raises(InputError) as info:
        empty_store.import_world(world, source="w.json")
    message = str(info.value)
    assert message.startswith("w.json: ")
    for piece in pieces:
        assert piece in message
    assert empty_store.works() == []
    # Nothing half-written: every table of the work is empty.
    for table in ("characters", "aliases", "scenes", "chunks", "facts", "relations", "entities"):
        assert empty_store._conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] == 0


def test_error_carries_the_path(empty_store: CanonStore) -> None:
    data = harbor_data()
    data["scenes"][3]["participants"][1] = "Bob2"
    with pytest.raises(InputError) as info:
        empty_store.import_world(World.model_validate(data))
    assert info.value.where == "scenes[3].participants[1]"
    assert str(info.value).startswith("scenes[3].participants[1]: unknown character 'Bob2'")


def test_failed_replace_keeps_the_old_work(store: CanonStore) -> None:
    before = store.export_world("harbor")
    data = harbor_data()
    data["work"]["title"] = "Changed"
    data["facts"][0]["subject"] = "Nobody"
    with pytest.raises(InputError):
        store.import_world(World.model_validate(data), replace=True)
    assert store.export_world("harbor") == before


def test_database_error_mid_write_rolls_back(store: CanonStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """Even a failure after validation (here: a write error) leaves the store as it was."""
    from incanon.canon import importer

    before = store.export_world("harbor")
    data = harbor_data()
    data["work"]["title"] = "Changed"

    real_write = importer._write

    def failing_write(conn, plan):  # type: ignore[no-untyped-def]
        real_write(conn, plan)
        raise RuntimeError("disk full")

    monkeypatch.setattr(importer, "_write", failing_write)
    with pytest.raises(RuntimeError):
        store.import_world(World.model_validate(data), replace=True)
    assert store.export_world("harbor") == before
    assert store.counts("harbor")["chunks"] == 6


def test_existing_work_without_replace(store: CanonStore) -> None:
    with pytest.raises(InputError, match="work 'harbor' is already in the store.*replace"):
        store.import_world(World.model_validate(harbor_data()))


def test_replace_overwrites(store: CanonStore) -> None:
    data = harbor_data()
    data["work"]["title"] = "The Harbor, revised"
    data["chunks"] = data["chunks"][:2]
    store.import_world(World.model_validate(data), replace=True)
    assert store.work("harbor").title == "The Harbor, revised"
    assert store.counts("harbor")["chunks"] == 2


def test_several_works_per_store(store: CanonStore) -> None:
    data = harbor_data()
    data["work"]["id"] = "harbor2"
    store.import_world(World.model_validate(data))
    assert [w.id for w in store.works()] == ["harbor", "harbor2"]
    # Same chunk and scene ids in two works do not collide.
    assert [c.id for c in store.chunks("harbor2")] == [c.id for c in store.chunks("harbor")]
    store.delete_work("harbor")
    assert [w.id for w in store.works()] == ["harbor2"]
    assert store.counts("harbor2")["facts"] == 6


def test_entity_of_type_character_may_share_a_name(empty_store: CanonStore) -> None:
    data = harbor_data()
    data["entities"].append({"name": "Cara", "type": "character", "description": "KG node"})
    data["relations"].append({"source": "Cara", "target": "Lighthouse", "type": "visits"})
    empty_store.import_world(World.model_validate(data))
    rel = empty_store.relations("harbor")[-1]
    assert (rel.source, rel.target) == ("Cara", "Lighthouse")


def test_narrator_speaker_names_are_case_insensitive(empty_store: CanonStore) -> None:
    data = harbor_data()
    data["scenes"][0]["messages"][0]["speaker"] = "environment"
    empty_store.import_world(World.model_validate(data))
    assert empty_store.messages("harbor", "s1")[0].speaker == "Environment"


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), float("-inf")])
def test_non_finite_relation_weights_are_refused(bad):
    from pydantic import ValidationError

    from incanon.canon.world import Relation

    with pytest.raises(ValidationError, match="finite"):
        Relation(source="a", target="b", type="friend", weight=bad)
