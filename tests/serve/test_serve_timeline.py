"""The timeline the chat's slider walks: scenes and time points in story order."""

from __future__ import annotations

from incanon.canon import CanonStore
from incanon.canon.position import Position
from incanon.sample import sample_world
from incanon.serve import timeline
from incanon.serve.reader import ReaderView

#: ``--spoilers`` without a reader position: the whole timeline (what these tests look at).
EVERYTHING = ReaderView(spoilers=True)


def test_stops_are_scenes_and_time_points_in_story_order(tmp_path):
    world = sample_world()
    with CanonStore.open(tmp_path / "canon") as store:
        store.import_world(world)
        line = timeline(store, world.work.id, EVERYTHING)
    positions = [Position.parse(s["at"]) for s in line["stops"]]
    assert positions == sorted(positions)
    assert len(positions) == len(set(p.key for p in positions))
    # Dialogue sessions share positions with scenes: one stop holds them all.
    assert sum(len(s["scenes"]) for s in line["stops"]) == len(world.scenes)
    shared = next(s for s in line["stops"] if s["at"] == "1-3-3")
    assert [x["id"] for x in shared["scenes"]] == ["1-3-3", "session-1"]
    assert shared["label"].endswith("(+1)")
    # "end of book 1" (1-3) is a chapter-level stop after the last scene of chapter 1-3.
    end_of_book_1 = next(i for i, s in enumerate(line["stops"]) if s["at"] == "1-3")
    assert line["stops"][end_of_book_1 - 1]["at"].startswith("1-3-")
    assert line["stops"][end_of_book_1 + 1]["at"].startswith("2-")
    marks = line["stops"][end_of_book_1]["marks"]
    assert {"character": "Wren Callow", "label": "end of book 1"} in marks
    assert line["stops"][end_of_book_1]["label"] == "1-3 · end of book 1"


def test_scene_stops_carry_title_date_and_who_was_there(tmp_path):
    world = sample_world()
    with CanonStore.open(tmp_path / "canon") as store:
        store.import_world(world)
        line = timeline(store, world.work.id, EVERYTHING)
    first = line["stops"][0]
    scene = world.scenes[0]
    assert (first["at"], first["scenes"][0]["id"], first["scenes"][0]["title"]) == ("1-1-1", scene.id, scene.title)
    assert first["label"] == f"1-1-1 · {scene.title}"
    assert first["date"] == "1187-03-02"
    assert "Wren Callow" in first["participants"]
    wren = next(c for c in line["characters"] if c["name"] == "Wren Callow")
    assert wren["first"] == "1-1-1"
    assert [tp["label"] for tp in wren["time_points"]][:2] == ["end of book 1", "the night of the flood"]
    assert line["title"] == world.work.title and line["axis"] == "chapter"
