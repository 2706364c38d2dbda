"""The assembled World: valid, chunked, cached but safe to change."""

from __future__ import annotations

import pytest

from incanon.canon.world import World
from incanon.ingest import word_count
from incanon.sample import SAMPLE_WORK_ID, sample_world


def test_world_is_valid_and_complete(world, books):
    assert isinstance(world, World)
    assert world.work.id == SAMPLE_WORK_ID and world.work.author == "incanon sample world"
    World.model_validate(world.model_dump())
    scene_ids = {s.id for b in books for s in b.scenes()}
    assert {c.scene for c in world.chunks} == scene_ids
    assert len({c.id for c in world.chunks}) == len(world.chunks)
    assert all(word_count(c.text) <= 350 for c in world.chunks)
    assert all(c.position == c.scene and c.source.startswith("book") for c in world.chunks)
    assert len(world.chunks) > len(scene_ids)  # some scenes were split


def test_chunks_rebuild_each_scene_text(world, books):
    by_scene: dict[str, list[str]] = {}
    for chunk in world.chunks:
        by_scene.setdefault(chunk.scene, []).append(chunk.text)
    for scene in (s for b in books for s in b.scenes()):
        assert " ".join(by_scene[scene.id]).split() == scene.text.split()


def test_session_scenes_carry_the_dialogue(world, sessions):
    scenes = {s.id: s for s in world.scenes}
    for session in sessions:
        assert len(scenes[session.id].messages) == len(session.utterances)
    assert scenes["session-6"].participants[-1] == "Ilse Varga"  # present but silent
    assert "Ilse Varga" not in scenes["session-6"].speakers


def test_sample_world_returns_an_independent_copy():
    first = sample_world()
    first.characters.clear()
    first.work.title = "changed"
    again = sample_world()
    assert again.characters and again.work.title == "The Lanterns of Harrowmere"


def test_canon_store_validation_accepts_it(world):
    validate = pytest.importorskip("incanon.canon.validate")
    plan = validate.plan_import(world)
    assert len(plan.scenes) == len(world.scenes)
