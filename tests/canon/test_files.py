"""Reading world files: malformed JSON and schema violations name the file, place and expectation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from incanon.canon import load_world_file
from incanon.canon.files import json_path
from incanon.errors import InputError, NotFoundError

from .fixtures import harbor_data


def _write(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "world.json"
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


def test_reads_a_valid_file(tmp_path: Path) -> None:
    world = load_world_file(_write(tmp_path, harbor_data()))
    assert world.work.id == "harbor"
    assert len(world.chunks) == 6


def test_malformed_json_names_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{\n  "work": {"id": "x",\n    "title": }\n}\n', encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_world_file(path)
    message = str(info.value)
    assert str(path) in message
    assert "line 3, column 14" in message
    assert "invalid JSON" in message


@pytest.mark.parametrize(
    "mutate, pieces",
    [
        (lambda d: d["scenes"][2].pop("id"), ["scenes[2].id: Field required"]),
        (lambda d: d["entities"][0].update(type="planet"), ["entities[0].type: Input should be", "'location'", "got 'planet'"]),
        (lambda d: d["chunks"][4].update(colour="red"), ["chunks[4].colour: Extra inputs are not permitted"]),
        (lambda d: d["chunks"][1].update(position="chapter two"), ["chunks[1].position", "invalid story position 'chapter two'"]),
        (lambda d: d["relations"][0].update(weight="heavy"), ["relations[0].weight", "valid number"]),
        (lambda d: d.pop("work"), ["work: Field required"]),
    ],
)
def test_schema_violation_names_the_field_path(tmp_path: Path, mutate, pieces: list[str]) -> None:  # type: ignore[no-untyped-def]
    data = harbor_data()
    mutate(data)
    path = _write(tmp_path, data)
    with pytest.raises(InputError) as info:
        load_world_file(path)
    message = str(info.value)
    assert message.startswith(f"{path}: ")
    for piece in pieces:
        assert piece in message


def test_counts_further_problems(tmp_path: Path) -> None:
    data = harbor_data()
    data["chunks"][0].pop("text")
    data["chunks"][1].pop("text")
    with pytest.raises(InputError, match=r"chunks\[0\]\.text: Field required \(and 1 more problems\)"):
        load_world_file(_write(tmp_path, data))


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(NotFoundError, match="does not exist"):
        load_world_file(tmp_path / "nope.json")


def test_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "latin.json"
    path.write_bytes(b'{"work": "\xe9"}')
    with pytest.raises(InputError, match="not UTF-8"):
        load_world_file(path)


def test_json_path() -> None:
    assert json_path(("scenes", 3, "participants", 1)) == "scenes[3].participants[1]"
    assert json_path(()) == "(top level)"
