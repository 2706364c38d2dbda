"""Loading published TimeChara data: formats, validation by row and field."""

from __future__ import annotations

import json

import pytest

from incanon.bench.timechara import load_items, write_items
from incanon.errors import ConfigError, InputError, NotFoundError

from timechara_helpers import published_row, published_rows


def _jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_jsonl_json_and_split_dict_load_the_same_items(tmp_path):
    rows = published_rows()
    a = load_items(_jsonl(tmp_path / "a.jsonl", rows))
    (tmp_path / "b.json").write_text(json.dumps(rows))
    (tmp_path / "c.json").write_text(json.dumps({"validation": rows, "test": rows + rows[:1]}))
    (tmp_path / "d.json").write_text(json.dumps({"data": rows}))
    assert [i.row() for i in a] == [i.row() for i in load_items(tmp_path / "b.json")]
    assert len(load_items(tmp_path / "c.json")) == 5  # validation is the default split
    assert len(load_items(tmp_path / "c.json", split="test")) == 6
    assert len(load_items(tmp_path / "d.json")) == 5
    assert {i.data_type for i in a} == {"future", "past-absence", "past-presence", "past-only"}
    assert a[0].id == "00000" and a[0].spatial_label.startswith("Absence")


def test_aliases_and_unknown_fields_are_kept(tmp_path):
    row = published_row(data_idx=7)
    row["event"] = row.pop("event_summary")  # the reference code names it "event" in fake rows
    row["participants"] = "['Harry Potter', 'Ronald Weasley']"
    (item,) = load_items(_jsonl(tmp_path / "x.jsonl", [row]))
    assert item.event_summary.startswith("Harry and Ron")
    assert item.participants == ["Harry Potter", "Ronald Weasley"]
    assert item.extra == {"data_idx": 7}


def test_every_bad_row_is_reported_by_line_and_field(tmp_path):
    rows = [
        published_row(),
        published_row(data_type="futur"),
        published_row(question=""),
        published_row(question_generation="fake_freeform", data_type="future", spatial_label="-"),
        published_row(data_type="past-presence", spatial_label="-"),
        published_row(participants=5),
    ]
    path = _jsonl(tmp_path / "bad.jsonl", rows)
    with path.open("a") as f:
        f.write("{not json\n")
    with pytest.raises(InputError) as info:
        load_items(path)
    text = str(info.value)
    assert "bad.jsonl" in text and "6 of 7 rows" in text
    assert "line 2, data_type: 'futur' is not one of" in text
    assert "line 3, question: missing or empty" in text
    assert "line 4, data_type: 'future' cannot go with question_generation 'fake_freeform'" in text
    assert "line 5, spatial_label: a past-presence item needs a spatial label" in text
    assert "line 6, participants: expected a list of names" in text
    assert "and 1 more" in text  # the broken line 7 is counted, not shown
    assert "by field:" in text and "participants 1" in text and "row 1" in text


def test_a_file_of_another_format_fails_in_one_line(tmp_path):
    path = _jsonl(tmp_path / "other.jsonl", [{"foo": i} for i in range(1000)])
    with pytest.raises(InputError) as info:
        load_items(path)
    text = str(info.value)
    assert "1000 of 1000 rows" in text and len(text) < 1200 and "\n" not in text


def test_repeated_ids_and_empty_files_are_errors(tmp_path):
    with pytest.raises(InputError, match="repeats the id"):
        load_items(_jsonl(tmp_path / "dup.jsonl", [published_row(id="a"), published_row(id="a")]))
    (tmp_path / "empty.jsonl").write_text("\n")
    with pytest.raises(InputError, match="no rows"):
        load_items(tmp_path / "empty.jsonl")
    with pytest.raises(NotFoundError):
        load_items(tmp_path / "missing.jsonl")
    (tmp_path / "bad.json").write_text("[1, 2")
    with pytest.raises(InputError, match="invalid JSON"):
        load_items(tmp_path / "bad.json")


def test_unknown_split_and_ambiguous_splits(tmp_path):
    (tmp_path / "s.json").write_text(json.dumps({"train": [published_row()], "test": [published_row()]}))
    with pytest.raises(ConfigError, match="--split"):
        load_items(tmp_path / "s.json")
    with pytest.raises(NotFoundError, match="splits: test, train"):
        load_items(tmp_path / "s.json", split="validation")


def test_round_trip_of_built_fields(tmp_path):
    items = load_items(_jsonl(tmp_path / "a.jsonl", published_rows()))
    extended = [items[0].model_copy(update={"work": "w", "scene": "s1", "character_position": "2-8",
                                            "gold_consistent": False, "gold_attempts": 3})]
    write_items(extended, tmp_path / "out.jsonl")
    (back,) = load_items(tmp_path / "out.jsonl")
    assert back == extended[0]
    with pytest.raises(InputError, match="character_position"):
        load_items(_jsonl(tmp_path / "p.jsonl", [published_row(character_position="chapter two")]))


def _datasets_folder(tmp_path, rows, fmt):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    table = pa.Table.from_pylist(rows)
    root = tmp_path / "timechara"
    for split, part in (("validation", rows), ("test", rows + rows)):
        folder = root / split
        folder.mkdir(parents=True)
        data = pa.Table.from_pylist(part)
        if fmt == "arrow":  # what datasets' save_to_disk writes: IPC stream + state.json
            with pa.OSFile(str(folder / "data-00000-of-00001.arrow"), "wb") as sink:
                with pa.ipc.new_stream(sink, data.schema) as writer:
                    writer.write_table(data)
            (folder / "state.json").write_text(json.dumps({"_data_files": [{"filename": "data-00000-of-00001.arrow"}]}))
            (folder / "dataset_info.json").write_text("{}")
        else:
            pq.write_table(data, folder / f"{split}-00000-of-00001.parquet")
    if fmt == "arrow":
        (root / "dataset_dict.json").write_text(json.dumps({"splits": ["validation", "test"]}))
    assert table.num_rows == len(rows)
    return root


@pytest.mark.parametrize("fmt", ["arrow", "parquet"])
def test_local_datasets_folders(tmp_path, fmt):
    root = _datasets_folder(tmp_path, published_rows(), fmt)
    assert len(load_items(root)) == 5
    assert len(load_items(root, split="test")) == 10
    single = next((root / "validation").glob("*.arrow" if fmt == "arrow" else "*.parquet"))
    assert [i.question for i in load_items(single)] == [r["question"] for r in published_rows()]
