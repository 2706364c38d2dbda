"""The end of the story is one point: a character without time points is served and audited at
the end of the last chapter, named by its position, where a main character's "end of the story"
stands; never "end" at the axis' end (book 2047)."""

from __future__ import annotations

from pathlib import Path

import pytest

from incanon.audit import audit_points
from incanon.canon import CanonStore
from incanon.canon.position import Position, end_of_story
from incanon.canon.story_end import story_end
from incanon.canon.world import Chunk, World, WorkInfo
from incanon.sample import sample_world

WORK = "lanterns"
#: Pell keeps no time points here: a minor character of a built book is like that.
PLAIN = "Pell"


@pytest.fixture
def lanterns(tmp_path: Path):
    world = sample_world()
    world.characters = [c.model_copy(update={"time_points": []}) if c.name == PLAIN else c for c in world.characters]
    with CanonStore.open(tmp_path / "canon") as store:
        store.import_world(world)
        yield store


def test_the_story_ends_at_the_end_of_its_last_chapter(lanterns: CanonStore) -> None:
    # The last scene is 3-4-1 and the last time point 3-4-2 ("the flight"); chapter 3-4 holds both.
    assert str(story_end(lanterns, WORK)) == "3-4"
    ends = {tp.position for c in lanterns.characters(WORK) for tp in c.time_points if tp.label == "end of the story"}
    assert ends == {story_end(lanterns, WORK)}


def test_a_character_without_time_points_is_audited_where_it_is_served(lanterns: CanonStore, tmp_path: Path) -> None:
    from incanon.serve import ServeConfig
    from incanon.serve.model_list import model_entries

    points = [(label, str(at)) for record, label, at in audit_points(lanterns, WORK, [PLAIN])]
    assert points == [("", "1-3-3"), ("", "3-4")]  # its first appearance and the end, named by position
    config = ServeConfig(canon=Path(lanterns.path), runs=tmp_path / "runs.sqlite", cache=False, chats=False)
    for reader in (None, "3", "3-4"):  # no reader position, one past the end, the end itself
        listed = [e["id"] for e in model_entries(config, reader) if e["incanon"]["character"] == PLAIN]
        assert listed == [f"{WORK}/{PLAIN}@3-4"], reader
    early = [e["id"] for e in model_entries(config, "2") if e["incanon"]["character"] == PLAIN]
    assert early == [f"{WORK}/{PLAIN}@2"]  # before the end: where the reader stands, as before


def test_a_work_placed_only_by_chunks_or_dates_ends_at_its_last(tmp_path: Path) -> None:
    corpus = World(work=WorkInfo(id="notes", title="Notes"),
                   chunks=[Chunk(id="a", text="One.", position="1-2-1"), Chunk(id="b", text="Two.", position="2-5-3")])
    with CanonStore.open(tmp_path / "canon") as store:
        store.import_world(corpus)
        assert str(story_end(store, "notes")) == "2-5"
        store.import_world(World(work=WorkInfo(id="empty", title="Empty")))
        assert story_end(store, "empty") == end_of_story(Position.parse("1-1").axis)
