"""Scenes kept in SQLite and reopened where they were; a saved scene reads back unchanged."""

from __future__ import annotations

import json

import pytest

from incanon.errors import InputError
from incanon.graph import HashEmbedder
from incanon.scenes import Scene, SceneSession, ScenesStore, handle
from incanon.sqlitedb import DamagedStoreError

from .conftest import scene, scripted, sent_to


async def test_a_kept_scene_reopens_where_it_was(vane, tmp_path):
    kept = ScenesStore(tmp_path / "scenes.sqlite")
    session = scene(vane, ["Ord", "Doctor Vane", "Tull"], "1-2-1")
    await handle(session, "Rain at the window.")
    await handle(session, "/to Tull Ord looks tired.")
    session.leave("Doctor Vane")
    await handle(session, "/at 1-4-1")
    kept.save(session.scene)
    kept.close()

    kept = ScenesStore(tmp_path / "scenes.sqlite")
    (listed,) = kept.list()
    assert (listed.id, listed.work, listed.present, listed.at, listed.lines) == (
        session.scene.id, "vane", ["Matthias Ord", "Bram Tull"], "1-4-1", 3)
    restored = kept.load(session.scene.id)
    assert restored.model_dump() == session.scene.model_dump()
    again = SceneSession.reopen(vane, restored, model=scripted(), embedder=HashEmbedder())
    assert again.present == ["Matthias Ord", "Bram Tull"] and str(again.position) == "1-4-1"
    assert set(again.members) == {"Matthias Ord", "Aurel Vane", "Bram Tull"}
    assert str(again.members["Aurel Vane"].who.position) == "1-4-1"
    await handle(again, "/next Tull")
    # What Tull heard before the restart is still his, the aside included.
    assert any("(Only you hear this.) Ord looks tired." in m for m in sent_to(again, "Bram Tull"))
    assert (await handle(again, "/next Doctor Vane")).message.startswith("Aurel Vane is not in the scene")
    assert kept.latest().id == session.scene.id
    kept.delete(session.scene.id)
    assert kept.list() == [] and kept.load(session.scene.id) is None
    kept.close()


async def test_save_writes_a_scene_that_loads_back(vane, tmp_path):
    session = scene(vane, ["Ord", "Tull"], "1-2-1")
    await handle(session, "Rain at the window.")
    outcome = await handle(session, f"/save {tmp_path / 'scene.json'}")
    assert outcome.kind == "saved" and outcome.path == tmp_path / "scene.json"
    loaded = Scene.load(tmp_path / "scene.json")
    assert loaded.lines == session.lines and loaded.format == "incanon-scene/1"
    assert loaded.lines[1].evidence.method == "in-canon" and loaded.lines[1].evidence.at == "1-2-1"
    (tmp_path / "chat.json").write_text(json.dumps({"format": "incanon-chat/1"}))
    with pytest.raises(InputError, match="not an incanon scene"):
        Scene.load(tmp_path / "chat.json")


def test_a_damaged_store_is_one_line(tmp_path):
    (tmp_path / "scenes.sqlite").write_bytes(b"not a database at all" * 100)
    with pytest.raises(DamagedStoreError, match="scenes store is damaged"):
        ScenesStore(tmp_path / "scenes.sqlite")
